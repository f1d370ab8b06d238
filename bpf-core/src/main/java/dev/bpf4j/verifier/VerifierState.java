package dev.bpf4j.verifier;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The whole abstract machine at one instruction ({@code struct bpf_verifier_state}): the call
 * chain's frames, innermost last.
 */
final class VerifierState {
    final List<FuncState> frames;
    int pc;
    /** How often this path has come back to each loop head (by its index): a loop's rounds so far. */
    int[] visits;
    /**
     * References this path holds ({@code acquired_refs}): a ring buffer reservation from
     * {@code bpf_ringbuf_reserve} until it is submitted, discarded or found null; each {@code {id, alloc pc}}.
     */
    List<int[]> refs = new ArrayList<>();
    /** The state this path kept last (the kernel's {@code parent}), for branch counts; null before the first. */
    StatePruning.Kept lastKept;

    VerifierState(List<FuncState> frames, int pc, int loopHeads) { this(frames, pc, new int[loopHeads]); }

    private VerifierState(List<FuncState> frames, int pc, int[] visits) {
        this.frames = frames;
        this.pc = pc;
        this.visits = visits;
    }

    /** Drops the reference {@code id} (release_reference_state); true when this path held it. */
    /** True while this path holds the reference {@code id} (acquired and not yet released). */
    boolean holds(int id) { return id != 0 && refs.stream().anyMatch(r -> r[0] == id); }

    boolean release(int id) { return id != 0 && refs.removeIf(r -> r[0] == id); }

    FuncState cur() { return frames.get(frames.size() - 1); }

    RegState reg(int r) { return cur().regs[r]; }

    /** Moves to the next slot; returns this. */
    VerifierState pcAdvance() {
        pc++;
        return this;
    }

    VerifierState copy() {
        List<FuncState> f = new ArrayList<>(frames.size());
        for (FuncState s : frames) f.add(s.copy());
        VerifierState c = new VerifierState(f, pc, visits.clone());
        c.lastKept = lastKept;
        c.refs = new ArrayList<>(refs);
        return c;
    }

    /** Every register and spilled slot of every frame, for id-based null propagation. */
    void forEachReg(Consumer<RegState> action) {
        for (FuncState f : frames) {
            for (RegState r : f.regs) action.accept(r);
            for (RegState r : f.spilled) if (r != null) action.accept(r);
        }
    }
}
