package dev.bpf4j.analysis;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.runtime.Limits;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Proves loads and stores through a register to lie inside the current stack frame, so the JIT can
 * emit them without a run-time check. It explores a function's paths as the kernel verifier does
 * (loops are followed iteration by iteration, so a counter stays exact and its bounds checks
 * decide the branch), over {@link AbstractState}s of intervals and frame offsets, refining scalars
 * on every conditional edge ({@link BranchRefinement}). A state reaching a jump target that an
 * already explored state there subsumes is pruned (everything it could do was already seen). An
 * access is proven when it was reached and, on every state that reached it, its base was
 * {@code r10 + [lo, hi]} with {@code [lo + off, hi + off + size)} inside {@code [-512, 0)}.
 *
 * <p>Sound by construction: anything not modelled (helper and bpf-to-bpf calls, stores through
 * unknown pointers, atomics, pointers in memory other than this frame's slots) becomes "unknown",
 * which proves nothing. When the exploration exceeds {@link #MAX_STEPS} the function gets no proofs;
 * a program whose functions together pass {@link #MAX_PROGRAM_STEPS} gets none for the rest
 * (so loading stays fast however many functions a program has). A step is an explored instruction
 * or an explored state compared in vain (same hash, not equal): every other part of a step costs
 * at most a constant, so the caps bound the time of a load.
 */
public final class StackProof {
    private StackProof() {}


    /** Steps explored per function before giving up (the kernel allows one million instructions). */
    static final int MAX_STEPS = 100_000;
    /** Steps explored over all functions of one program. */
    static final int MAX_PROGRAM_STEPS = 300_000;

    /** What one program's explorations may still spend (see {@link #MAX_PROGRAM_STEPS}). */
    public static final class Budget {
        private final int functionSteps;
        private int left, functionLeft;
        private long spent, inVain;

        /** The caps above: what the JIT spends, whose every proven access runs unchecked. */
        public Budget() { this(MAX_PROGRAM_STEPS); }

        /** At most {@code steps} over the program (and {@link #MAX_STEPS} per function). */
        public Budget(int steps) {
            left = steps;
            functionSteps = Math.min(steps, MAX_STEPS);
        }

        private void startFunction() { functionLeft = functionSteps; }

        /** Spends steps; false once the function or the program has spent its share. */
        private boolean spend(int steps) {
            spent += steps;
            functionLeft -= steps;
            left -= steps;
            return !exhausted();
        }

        /** A step for an explored state compared with s in vain: it has s's hash but is not s. */
        private boolean spendInVain() {
            inVain++;
            return spend(1);
        }

        private boolean exhausted() { return functionLeft < 0 || left < 0; }

        /** Steps spent so far, comparisons in vain included. */
        public long spent() { return spent; }

        /** States compared in vain so far: many only when hash codes collide. */
        public long comparedInVain() { return inVain; }
    }
    /** States kept per jump target for pruning, and how many recent ones a new state is compared with. */
    private static final int MAX_STATES_PER_PC = 4096, SUBSUMPTION_WINDOW = 4;

    /**
     * {@code result[pc]} true: the load or store at pc (base register other than r10) always
     * addresses the current frame. Only pcs of functions in {@code [startPc, endPc)} are set.
     */
    public static boolean[] provenAccesses(Insn[] insns, int startPc, int endPc) {
        return provenAccesses(insns, startPc, endPc, new Budget());
    }

    /** As above, spending from a budget shared by the functions of one program. */
    public static boolean[] provenAccesses(Insn[] insns, int startPc, int endPc, Budget budget) {
        if (!frameEscapes(insns, startPc, endPc)) return new boolean[insns.length]; // no register ever holds a frame pointer
        return prove(insns, startPc, endPc, AbstractState.entry(), budget);
    }

    /**
     * Explores from {@code entry}: {@code result[pc]} is true for a plain load or store that every
     * state reaching it proves inside the frame or (in a region analysis) inside the data buffer.
     */
    static boolean[] prove(Insn[] insns, int startPc, int endPc, AbstractState entry, Budget budget) {
        boolean[] proven = new boolean[insns.length];
        if (!hasCandidates(insns, startPc, endPc)) return proven;
        boolean[] reached = new boolean[insns.length], unsafe = new boolean[insns.length];
        try {
            if (!explore(insns, startPc, endPc, entry, reached, unsafe, budget)) return proven;
        } catch (RuntimeException malformed) {
            return proven; // an instruction the model does not know (the validator or the JIT rejects it): no proofs
        }
        for (int pc = startPc; pc < endPc; pc++) proven[pc] = reached[pc] && !unsafe[pc] && isPlainAccess(insns[pc]);
        return proven;
    }

    /** True when r10 is copied into a register or memory: only then can a register hold a frame pointer. */
    static boolean frameEscapes(Insn[] insns, int startPc, int endPc) {
        for (int pc = startPc; pc < endPc; pc++) {
            Insn i = insns[pc];
            int cls = i.cls();
            if ((cls == Opcodes.ALU || cls == Opcodes.ALU64) && Opcodes.source(i.opcode()) == Opcodes.X && i.src() == 10) return true;
            if (cls == Opcodes.STX && i.src() == 10) return true;
            if (i.isLddw()) pc++;
        }
        return false;
    }

    private static boolean hasCandidates(Insn[] insns, int startPc, int endPc) {
        for (int pc = startPc; pc < endPc; pc++) {
            if (isPlainAccess(insns[pc])) return true;
            if (insns[pc].isLddw()) pc++;
        }
        return false;
    }

    static boolean isPlainAccess(Insn i) {
        int cls = i.cls(), mode = Opcodes.mode(i.opcode());
        if (cls == Opcodes.LDX) return (mode == Opcodes.MEM || mode == Opcodes.MEMSX) && i.src() != 10;
        if (cls == Opcodes.ST || cls == Opcodes.STX) return mode == Opcodes.MEM && i.dst() != 10;
        return false;
    }

    private static boolean explore(Insn[] insns, int startPc, int endPc, AbstractState entry, boolean[] reached, boolean[] unsafe,
                                   Budget budget) {
        boolean[] target = jumpTargets(insns, startPc, endPc);
        Explored[] seen = new Explored[insns.length];
        ArrayDeque<Object[]> work = new ArrayDeque<>();
        work.push(new Object[]{startPc, entry});
        budget.startFunction();
        while (!work.isEmpty()) {
            Object[] item = work.pop();
            int pc = (Integer) item[0];
            AbstractState s = (AbstractState) item[1];
            if (pc < startPc || pc >= endPc) return false; // left the function: the validator forbids it
            if (!budget.spend(1)) return false;
            if (target[pc]) {
                if (seen[pc] == null) seen[pc] = new Explored();
                boolean covered = seen[pc].covers(s, budget);
                if (budget.exhausted()) return false;
                if (covered) continue;
            }
            Insn i = insns[pc];
            int next = step(insns, pc, i, s, reached, unsafe, work);
            if (next >= 0) work.push(new Object[]{next, s});
        }
        return true;
    }

    /** Applies slot {@code pc} to s; returns the fall-through pc (s is its state) or -1 (jumps pushed themselves). */
    private static int step(Insn[] insns, int pc, Insn i, AbstractState s, boolean[] reached, boolean[] unsafe, ArrayDeque<Object[]> work) {
        int cls = i.cls();
        switch (cls) {
            case Opcodes.ALU:
            case Opcodes.ALU64:
                AluTransfer.apply(s, i, pc);
                return pc + 1;
            case Opcodes.LD:
                if (i.isLddw()) {
                    if (i.src() == Opcodes.PSEUDO_IMM64 && pc + 1 < insns.length) {
                        long v = i.imm64(insns[pc + 1]);
                        s.setScalar(i.dst(), v, v);
                    } else {
                        s.setTop(i.dst());
                    }
                    return pc + 2;
                }
                for (int r = 0; r <= 5; r++) s.setTop(r); // LD ABS/IND: r0 = packet bytes, r1-r5 clobbered (or the frame exits)
                return pc + 1;
            case Opcodes.LDX:
                byte field = MemoryTransfer.load(s, i, check(s, pc, i.src(), i.off(), Opcodes.sizeBytes(i.opcode()), true, reached, unsafe));
                if (s.facts() != null) s.facts().noteLoad(pc, field);
                return pc + 1;
            case Opcodes.ST:
            case Opcodes.STX:
                if (Opcodes.mode(i.opcode()) == Opcodes.ATOMIC) {
                    MemoryTransfer.atomic(s, i);
                    return pc + 1;
                }
                MemoryTransfer.store(s, i, check(s, pc, i.dst(), i.off(), Opcodes.sizeBytes(i.opcode()), false, reached, unsafe));
                return pc + 1;
            default:
                return jump(pc, i, s, work);
        }
    }

    /**
     * Records whether this access is inside the frame or the data buffer on this path; returns
     * whether it is inside the frame.
     */
    private static boolean check(AbstractState s, int pc, int base, int off, int size, boolean load, boolean[] reached, boolean[] unsafe) {
        reached[pc] = true;
        boolean inFrame = s.isFrame(base) && s.lo(base) + off >= -Limits.STACK_SIZE && s.hi(base) + off + size <= 0;
        if (!inFrame && !inBuffer(s, base, off, size) && !(load && inCtx(s, base, off, size))) unsafe[pc] = true;
        return inFrame;
    }

    /** A load through {@code ctx + [lo, hi]} inside the ctx bytes the entry guard checks readable (ctx form only). */
    private static boolean inCtx(AbstractState s, int base, int off, int size) {
        return s.kind(base) == AbstractState.CTX && s.lo(base) + off >= 0 && s.hi(base) + off + size <= s.facts().ctxExtent();
    }

    /** A packet pointer {@code data + V + [lo, hi]} with {@code [V + lo + off, V + hi + off + size)} inside the proven range. */
    private static boolean inBuffer(AbstractState s, int base, int off, int size) {
        if (s.kind(base) != AbstractState.PACKET) return false;
        RegionFacts f = s.facts();
        int id = s.id(base);
        return f.vlo(id) + s.lo(base) + off >= 0 && s.hi(base) + off + size <= f.range(id);
    }

    private static int jump(int pc, Insn i, AbstractState s, ArrayDeque<Object[]> work) {
        int op = Opcodes.op(i.opcode());
        boolean jmp32 = i.cls() == Opcodes.JMP32;
        switch (op) {
            case Opcodes.JA:
                work.push(new Object[]{pc + 1 + (jmp32 ? i.imm() : i.off()), s});
                return -1;
            case Opcodes.EXIT:
                return -1;
            case Opcodes.CALL:
                for (int r = 0; r <= 5; r++) s.setTop(r);
                s.clobberAllSlots(); // the callee or helper may write this frame through a pointer
                s.ctxMayChange();    // ... or move the packet (bpf_xdp_adjust_head, bpf_skb_pull_data)
                return pc + 1;
            default: {
                AbstractState fall = BranchRefinement.edge(s, i, false);
                AbstractState taken = BranchRefinement.edge(s, i, true);
                if (fall != null) work.push(new Object[]{pc + 1, fall});
                if (taken != null) work.push(new Object[]{pc + 1 + i.off(), taken});
                return -1;
            }
        }
    }

    private static boolean[] jumpTargets(Insn[] insns, int startPc, int endPc) {
        boolean[] t = new boolean[insns.length + 1];
        for (int pc = startPc; pc < endPc; pc++) {
            Insn i = insns[pc];
            int target = i.jumpTarget(pc);
            if (target >= 0 && target < t.length) t[target] = true;
            if (i.isLddw()) pc++;
        }
        return t;
    }

    /**
     * The states explored at one jump target. An equal state is found by hash; subsumption is tried
     * against the most recent few only (pruning less is always sound, it only explores more).
     */
    private static final class Explored {
        /** By hash code: the states with that hash (more than one only when hashes collide). */
        private final Map<Integer, List<AbstractState>> byHash = new HashMap<>();
        private final ArrayDeque<AbstractState> recent = new ArrayDeque<>();
        private int size;

        /**
         * True when s adds nothing; otherwise remembers a copy of s. Spends a step of the budget for
         * each state with s's hash that is not s, so colliding hashes cannot make a step slow.
         */
        boolean covers(AbstractState s, Budget budget) {
            s.dropUnusedIds();
            List<AbstractState> same = byHash.get(s.hashCode());
            if (same != null) {
                for (AbstractState old : same) {
                    if (old.equals(s)) return true;
                    if (!budget.spendInVain()) return false;
                }
            }
            for (AbstractState old : recent) if (s.subsumedBy(old)) return true;
            if (size < MAX_STATES_PER_PC) {
                AbstractState c = s.copy();
                byHash.computeIfAbsent(c.hashCode(), h -> new ArrayList<>(1)).add(c);
                size++;
                recent.addFirst(c);
                if (recent.size() > SUBSUMPTION_WINDOW) recent.removeLast();
            }
            return false;
        }
    }

    /** For tests and reports: how many accesses {@code proven} marks. */
    public static int count(boolean[] proven) {
        int n = 0;
        for (boolean b : proven) if (b) n++;
        return n;
    }
}
