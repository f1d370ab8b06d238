package dev.bpf4j.verifier;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.runtime.HelperRegistry;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The kernel-style verifier ({@code do_check}): explores every path of the program through an
 * abstract machine ({@link VerifierState}), instruction by instruction ({@link Step}), forking at
 * branches whose outcome the bounds do not decide, and stops a path where an explored state at a
 * jump target covers it ({@link StatePruning}). Rejects with the kernel's wording at the first
 * unsafe instruction; runs after the syntactic passes, so every slot is well-formed and every
 * jump lands inside its subprogram.
 */
final class Verifier {
    /** The kernel's BPF_COMPLEXITY_LIMIT_INSNS: instructions processed over all paths. */
    static final int COMPLEXITY_LIMIT = 1_000_000;
    /** The kernel's BPF_COMPLEXITY_LIMIT_JMP_SEQ: branches pushed and not yet explored. */
    static final int JMP_SEQ_LIMIT = 8192;
    /** States kept per instruction, and in all; past that, new ones are checked but not kept. */
    static final int MAX_STATES_PER_INSN = 8192, MAX_STATES = 65536;

    private final Reject reject;
    private final Insn[] insns;
    private final InsnForm[] forms;
    private final boolean[] prunePoint;
    /**
     * Each loop head's index into {@link VerifierState#visits}, -1 elsewhere. A loop head is the
     * target of a jump back (every cycle holds one), the only place a path's rounds are counted and
     * widened: a count per prune point would make every state copy as long as the program.
     */
    private final int[] loopIndex;
    private final int loopHeadCount;
    /** Per instruction: the states kept there, grouped by {@link StatePruning#shape}. */
    private final Map<Long, List<StatePruning.Kept>>[] explored;
    /** Per instruction: the state kept there last, what a loop's next round is widened against. */
    private final VerifierState[] lastKept;
    private final Step step;
    /** Per instruction, which registers' scalar values pruning must compare. */
    private final PrecisionLiveness precision;
    private final InsnAuxRecorder aux;
    private final StackDepth depths = new StackDepth();
    /** Rounds of one loop a path is followed exactly before it is widened: {@link #EXACT} never widens. */
    private final int widenAfter;
    /** Follows every loop round by round, as Linux does. */
    static final int EXACT = Integer.MAX_VALUE;
    private int processed, totalStates, maxStatesPerInsn;
    /** Jumps (every JMP-class instruction: jumps, calls, exits) processed, and both counts when a state was last kept. */
    private int jmpsProcessed, prevJmpsProcessed, prevInsnProcessed;

    @SuppressWarnings("unchecked")
    Verifier(Reject reject, Insn[] insns, InsnForm[] forms, HelperRegistry helpers, VerifierPolicy policy, int widenAfter) {
        this.reject = reject;
        this.widenAfter = widenAfter;
        this.insns = insns;
        this.forms = forms;
        this.prunePoint = prunePoints(insns, forms);
        this.loopIndex = loopHeads(insns, forms);
        int n = 0;
        for (int pc = 0; pc < insns.length; pc++) if (loopIndex[pc] >= 0) loopIndex[pc] = n++;
        this.loopHeadCount = n;
        this.explored = new Map[insns.length];
        this.lastKept = new VerifierState[insns.length];
        this.aux = new InsnAuxRecorder(reject, insns.length);
        this.precision = PrecisionLiveness.of(insns, forms);
        this.step = new Step(reject, insns, forms, helpers, policy, aux, depths);
    }

    VerifierStats verify(VerifierPolicy policy) {
        Deque<VerifierState> pending = new ArrayDeque<>();
        pending.push(step.entryState(loopHeadCount));
        while (!pending.isEmpty()) {
            VerifierState st = pending.pop();
            while (st != null) {
                if (++processed > COMPLEXITY_LIMIT) {
                    tooComplex = true;
                    throw reject.at(st.pc, "BPF program is too large. Processed " + processed + " insn");
                }
                if (prunePoint[st.pc] && pruned(st)) {
                    pathEnded(st);
                    break;
                }
                int before = pending.size(), pc = st.pc;
                if (forms[pc].isJump() || forms[pc].isCall() || forms[pc] == InsnForm.EXIT) jmpsProcessed++;
                VerifierState next = step.execute(st, pending);
                if (pending.size() > JMP_SEQ_LIMIT) {
                    tooComplex = true;
                    throw reject.at(pc, "The sequence of " + pending.size() + " jumps is too complex. (at most " + JMP_SEQ_LIMIT
                            + " branches may wait to be explored, as in Linux)");
                }
                if (st.lastKept != null) st.lastKept.branches += pending.size() - before; // forks carry st's lastKept
                if (next == null) pathEnded(st);
                st = next;
            }
        }
        long bound = loopPruned || widened || step.runsOtherCode() ? -1 : processed;
        return new VerifierStats(processed, maxStatesPerInsn, totalStates, bound);
    }

    /** A state covered by one whose paths are still being explored: a loop came round (the kernel's states_maybe_looping). */
    private boolean loopPruned;
    /** Some loop's bounds were widened: its rounds are no longer counted. */
    private boolean widened;
    /** Some path came round a loop head more than {@link StatePruning#WIDEN_AFTER} times. */
    private boolean longLoop;
    /** Refused at a complexity limit: too many instructions processed or branches waiting. */
    private boolean tooComplex;

    /**
     * True when this verifier was refused at a complexity limit while following a loop of more than
     * {@link StatePruning#WIDEN_AFTER} rounds exactly: a verifier that widens such loops may still fit.
     */
    boolean refusedForLongLoop() { return tooComplex && longLoop && widenAfter == EXACT; }

    private boolean coveredBy(StatePruning.Kept k) {
        if (k == null) return false;
        if (k.branches > 0) loopPruned = true;
        return true;
    }

    /** The path of {@code st} ended (an exit, a dead branch, or covered by a kept state). */
    private static void pathEnded(VerifierState st) {
        if (st.lastKept != null) st.lastKept.pathEnded();
    }

    /** How deep each function's frame was used on the paths {@link #verify} explored. */
    StackDepth stackDepths() { return depths; }

    /** The per-instruction facts of the paths {@link #verify} explored. */
    InsnAux aux() { return aux.build(); }

    private boolean pruned(VerifierState st) {
        Map<Long, List<StatePruning.Kept>> atPc = explored[st.pc];
        if (atPc == null) explored[st.pc] = atPc = new HashMap<>();
        int rounds = loopIndex[st.pc] >= 0 ? ++st.visits[loopIndex[st.pc]] : 0;
        boolean loopHead = loopIndex[st.pc] >= 0;
        List<StatePruning.Kept> seen = atPc.computeIfAbsent(StatePruning.shape(st), k -> new ArrayList<>());
        if (coveredBy(StatePruning.covering(seen, st, precision, loopHead))) return true;
        if (rounds > StatePruning.WIDEN_AFTER) longLoop = true;
        if (rounds > widenAfter && lastKept[st.pc] != null) {
            StatePruning.widen(lastKept[st.pc], st);
            widened = true;
            seen = atPc.computeIfAbsent(StatePruning.shape(st), k -> new ArrayList<>()); // offsets may have moved
            if (coveredBy(StatePruning.covering(seen, st, precision, loopHead))) return true;
        }
        // the kernel's add_new_state: a new state only after 2 jumps and 8 instructions since the last one
        // (prune points come every few instructions; most states kept there never cover anything), and always
        // at a loop head, where rounds are counted and widened
        if (!loopHead && (jmpsProcessed - prevJmpsProcessed < 2 || processed - prevInsnProcessed < 8)) return false;
        if (seen.size() < MAX_STATES_PER_INSN && totalStates < MAX_STATES) {
            prevJmpsProcessed = jmpsProcessed;
            prevInsnProcessed = processed;
            VerifierState kept = st.copy();
            lastKept[st.pc] = kept;
            StatePruning.Kept k = new StatePruning.Kept(kept, st.lastKept);
            st.lastKept = k;
            seen.add(k);
            totalStates++;
            maxStatesPerInsn = Math.max(maxStatesPerInsn, seen.size());
        }
        return false;
    }

    /** 0 at every target of a jump to itself or backwards, -1 elsewhere. */
    private static int[] loopHeads(Insn[] insns, InsnForm[] forms) {
        int[] heads = new int[insns.length];
        Arrays.fill(heads, -1);
        for (int pc = 0; pc < insns.length; pc++) {
            if (!forms[pc].isJump()) continue;
            long t = ControlFlow.target(pc, forms[pc], insns[pc]);
            if (t >= 0 && t <= pc) heads[(int) t] = 0;
        }
        return heads;
    }

    /** Jump targets and the slots after conditional jumps, where paths meet (the kernel's prune points), and function starts. */
    private static boolean[] prunePoints(Insn[] insns, InsnForm[] forms) {
        boolean[] p = new boolean[insns.length];
        for (int pc = 0; pc < insns.length; pc++) {
            InsnForm f = forms[pc];
            if (f.isJump() || f == InsnForm.CALL_LOCAL) {
                long t = ControlFlow.target(pc, f, insns[pc]);
                if (t >= 0 && t < insns.length) p[(int) t] = true;
                if (f == InsnForm.JCOND_IMM || f == InsnForm.JCOND_REG) if (pc + 1 < insns.length) p[pc + 1] = true;
            }
            if (f == InsnForm.LDDW && insns[pc].src() == Opcodes.PSEUDO_FUNC) {
                long t = ControlFlow.target(pc, f, insns[pc]);
                if (t >= 0 && t < insns.length) p[(int) t] = true;
            }
        }
        return p;
    }
}
