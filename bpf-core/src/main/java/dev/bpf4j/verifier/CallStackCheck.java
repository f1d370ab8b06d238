package dev.bpf4j.verifier;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.Limits;

import java.util.Arrays;
import java.util.List;

/**
 * The kernel's {@code check_max_stack_depth}, run after the paths were explored: every call chain the
 * program's text holds, reachable or not (each {@code call local} and {@code lddw} of a function, as
 * Linux walks them), has at most {@link Limits#MAX_CALL_FRAMES} frames, and its frames' depths
 * ({@link StackDepth}, rounded up to 16 as with Linux's JIT) sum to at most 512 bytes. bpf4j gives
 * every frame its own 512 bytes, so this is agreement with Linux, not safety: a program Linux
 * refuses for its combined stack is refused here too, with Linux's words.
 */
final class CallStackCheck {
    /** The kernel's BPF_PRIV_STACK_MIN_SIZE: from this depth a tracing function gets a private stack. */
    private static final int PRIV_STACK_MIN_SIZE = 64;
    /** The kernel's limit on the frames above a function with a tail call. */
    private static final int TAIL_CALL_STACK_LIMIT = 256;

    private final Reject reject;
    private final Insn[] insns;
    private final InsnForm[] forms;
    private final List<Subprogram> subprograms;
    private final StackDepth depths;
    private final boolean privateStacks;
    private final boolean[] hasTailCall;
    /** Per subprogram and frame: the largest depth above it already walked without an error (a chain below is no deeper from less). */
    private final int[][] walked;

    /**
     * @param privateStacks the program may be a kprobe, tracepoint, perf_event or raw tracepoint,
     *                      whose functions of 64 bytes or more Linux moves to a private stack
     *                      (outside the sum); assumed wherever the context is a kernel one without packet
     */
    CallStackCheck(Reject reject, Insn[] insns, InsnForm[] forms, List<Subprogram> subprograms, StackDepth depths,
                   boolean privateStacks, HelperRegistry helpers) {
        this.reject = reject;
        this.insns = insns;
        this.forms = forms;
        this.subprograms = subprograms;
        this.depths = depths;
        this.privateStacks = privateStacks;
        this.hasTailCall = new boolean[subprograms.size()];
        this.walked = new int[subprograms.size()][Limits.MAX_CALL_FRAMES];
        for (int[] w : walked) Arrays.fill(w, -1);
        for (Subprogram s : subprograms) {
            for (int pc = s.start(); pc < s.end(); pc++) {
                if (forms[pc] == InsnForm.CALL_HELPER && helpers.lookup(insns[pc].imm())
                        .map(h -> h.name().equals("bpf_tail_call")).orElse(false)) {
                    hasTailCall[s.index()] = true;
                }
            }
        }
    }

    void check() { walk(subprograms.get(0), 0, 0, 0); }

    /** Function {@code sub} entered at frame {@code frame} (by the call at {@code callPc}) with {@code depth} bytes above it. */
    private void walk(Subprogram sub, int frame, int depth, int callPc) {
        if (walked[sub.index()][frame] >= depth) return;
        if (sub.index() != 0 && hasTailCall[sub.index()] && depth >= TAIL_CALL_STACK_LIMIT) {
            throw reject.at(callPc, "tail_calls are not allowed when call stack of previous frames is " + depth + " bytes. Too large");
        }
        int own = (depths.of(sub.start()) + 15) & ~15;
        int total = privateStacks && own >= PRIV_STACK_MIN_SIZE ? depth : depth + own;
        if (total > Limits.STACK_SIZE) {
            throw reject.at(callPc, "combined stack size of " + (frame + 1) + " calls is " + total + ". Too large (Linux gives a call"
                    + " chain " + Limits.STACK_SIZE + " bytes of stack in all)");
        }
        for (int pc = sub.start(); pc < sub.end(); pc++) {
            boolean funcAddress = forms[pc] == InsnForm.LDDW && insns[pc].src() == Opcodes.PSEUDO_FUNC;
            if (forms[pc] != InsnForm.CALL_LOCAL && !funcAddress) continue;
            if (frame + 1 >= Limits.MAX_CALL_FRAMES) {
                throw reject.at(pc, "the call stack of " + (frame + 1) + " frames is too deep ! (Linux counts every call in the"
                        + " program's text, reachable or not: at most " + Limits.MAX_CALL_FRAMES + " frames)");
            }
            walk(subprogramAt((int) ControlFlow.target(pc, forms[pc], insns[pc])), frame + 1, total, pc);
        }
        walked[sub.index()][frame] = Math.max(walked[sub.index()][frame], depth);
    }

    private Subprogram subprogramAt(int start) {
        int lo = 0, hi = subprograms.size() - 1;
        while (lo < hi) { // ControlFlow made every call target a subprogram start
            int mid = (lo + hi + 1) >>> 1;
            if (subprograms.get(mid).start() <= start) lo = mid; else hi = mid - 1;
        }
        return subprograms.get(lo);
    }
}
