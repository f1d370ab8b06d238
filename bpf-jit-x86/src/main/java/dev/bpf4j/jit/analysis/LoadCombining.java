package dev.bpf4j.jit.analysis;

import dev.bpf4j.program.RegisterUse;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * Finds byte loads that the JIT can merge into one wider load: clang reads a big-endian header
 * field as single bytes shifted and or-ed together ({@code r = b[12] << 8 | b[13]}), which gcc
 * compiles to one load and a {@code bswap}. Within a basic block, a {@link ByteGather} follows each
 * register; where a value equals one 2-, 4- or 8-byte load, the instructions that built it are
 * dropped and the load is emitted in place of the last byte load.
 *
 * <p>Only where the result cannot differ from the byte-by-byte code:
 * <ul>
 *   <li>every byte load is one the JIT emits without a check (proven in the frame or the data
 *       buffer), so none of them could fail and the wide load cannot either;</li>
 *   <li>nothing that may write memory (a store, an atomic, a call) lies between the first and the
 *       last of the loads, so they read what the one load reads;</li>
 *   <li>each dropped instruction's result is read only by other dropped instructions, never after
 *       the block ({@link Liveness});</li>
 *   <li>no instruction between the last load and the end of the tree reads or writes the
 *       destination, which the wide load now sets earlier.</li>
 * </ul>
 */
public final class LoadCombining {
    /** One wide load: {@code dst = (width bytes at base + off)}, byte-swapped when big-endian. */
    public record CombinedLoad(int dst, int base, int off, int width, boolean bigEndian) {}

    /** {@code at[pc]}: the wide load to emit at pc instead of its instruction; {@code dropped[pc]}: emit nothing. */
    public record Plan(CombinedLoad[] at, boolean[] dropped) {
        public static Plan empty(int slots) { return new Plan(new CombinedLoad[slots], new boolean[slots]); }

        /** Number of wide loads in the plan. */
        public int loads() {
            int n = 0;
            for (CombinedLoad l : at) if (l != null) n++;
            return n;
        }
    }

    private LoadCombining() {}

    /**
     * Adds the function {@code [startPc, endPc)} to {@code plan}. {@code unchecked} tells which
     * loads the JIT emits without a check.
     */
    public static void planFunction(Insn[] insns, int startPc, int endPc, IntPredicate unchecked, Plan plan) {
        Liveness liveness = null;
        boolean[] leader = leaders(insns, startPc, endPc);
        int blockStart = startPc;
        for (int pc = startPc; pc < endPc; pc += RegisterUse.width(insns[pc])) {
            int next = pc + RegisterUse.width(insns[pc]);
            if (next < endPc && !leader[next]) continue;
            if (hasByteLoads(insns, blockStart, next, unchecked)) {
                if (liveness == null) liveness = Liveness.of(insns, startPc, endPc);
                if (liveness == null) return; // did not converge: combine nothing
                new Block(insns, blockStart, next, unchecked, liveness, plan).combine();
            }
            blockStart = next;
        }
    }

    private static boolean[] leaders(Insn[] insns, int startPc, int endPc) {
        boolean[] leader = new boolean[insns.length + 1];
        leader[startPc] = true;
        for (int pc = startPc; pc < endPc; pc += RegisterUse.width(insns[pc])) {
            Insn i = insns[pc];
            if (RegisterUse.endsBlock(i)) leader[Math.min(pc + RegisterUse.width(i), insns.length)] = true;
            int target = i.jumpTarget(pc);
            if (target >= startPc && target < endPc) leader[target] = true;
        }
        return leader;
    }

    private static boolean hasByteLoads(Insn[] insns, int from, int to, IntPredicate unchecked) {
        int n = 0;
        for (int pc = from; pc < to; pc++) if (isByteLoad(insns[pc]) && unchecked.test(pc)) n++;
        return n >= 2;
    }

    static boolean isByteLoad(Insn i) {
        return i.opcode() == (Opcodes.LDX | Opcodes.MEM | Opcodes.B);
    }

    /** One basic block: the gathers, who reads each result, and the trees that become one load. */
    private static final class Block {
        private final Insn[] insns;
        private final int from, to;
        private final IntPredicate unchecked;
        private final Liveness liveness;
        private final Plan plan;
        /** Per pc of the block: the pcs that read its result, and whether a later block may. */
        private final BitSet[] readers;
        private final boolean[] readAfter;
        private final ByteGather[] result;

        Block(Insn[] insns, int from, int to, IntPredicate unchecked, Liveness liveness, Plan plan) {
            this.insns = insns;
            this.from = from;
            this.to = to;
            this.unchecked = unchecked;
            this.liveness = liveness;
            this.plan = plan;
            this.readers = new BitSet[to - from];
            this.readAfter = new boolean[to - from];
            this.result = new ByteGather[to - from];
        }

        void combine() {
            List<Integer> candidates = follow();
            for (int k = candidates.size() - 1; k >= 0; k--) {
                int root = candidates.get(k);
                if (!plan.dropped()[root]) tryCombine(root);
            }
        }

        /** Runs the block forward: gathers per register and the readers of every result. */
        private List<Integer> follow() {
            ByteGather[] reg = new ByteGather[11];
            int[] version = new int[11];
            int[] lastWriter = new int[11];
            java.util.Arrays.fill(lastWriter, -1);
            List<Integer> candidates = new ArrayList<>();
            int last = from;
            for (int pc = from; pc < to; pc += RegisterUse.width(insns[pc])) {
                last = pc;
                Insn i = insns[pc];
                readers[pc - from] = new BitSet();
                for (int r = 0; r <= 10; r++) {
                    if ((RegisterUse.uses(i) & RegisterUse.bit(r)) != 0 && lastWriter[r] >= 0) readers[lastWriter[r] - from].set(pc);
                }
                ByteGather g = transfer(i, pc, reg, version);
                int written = mayWrite(i);
                for (int r = 0; r <= 10; r++) {
                    if ((written & RegisterUse.bit(r)) == 0) continue;
                    reg[r] = null;
                    version[r]++;
                    if ((RegisterUse.defs(i) & RegisterUse.bit(r)) != 0) lastWriter[r] = pc;
                }
                if (g != null) {
                    reg[i.dst()] = g;
                    result[pc - from] = g;
                    if (g.asLoad(i.dst()) != null) candidates.add(pc);
                }
            }
            int liveOut = liveness.liveOut(last);
            for (int r = 0; r <= 10; r++) {
                if (lastWriter[r] >= 0 && (liveOut & RegisterUse.bit(r)) != 0) readAfter[lastWriter[r] - from] = true;
            }
            return candidates;
        }

        /** The gather {@code i} leaves in its destination, or null. */
        private ByteGather transfer(Insn i, int pc, ByteGather[] reg, int[] version) {
            if (isByteLoad(i)) {
                return unchecked.test(pc) ? ByteGather.load(i.src(), version[i.src()], i.off(), pc) : null;
            }
            int cls = i.cls();
            if (cls != Opcodes.ALU && cls != Opcodes.ALU64) return null;
            int width = cls == Opcodes.ALU64 ? 8 : 4;
            boolean x = Opcodes.source(i.opcode()) == Opcodes.X;
            ByteGather dst = reg[i.dst()];
            switch (Opcodes.op(i.opcode())) {
                case Opcodes.LSH:
                    if (x || dst == null || i.imm() % 8 != 0 || i.imm() < 0 || i.imm() >= width * 8) return null;
                    return fits(dst, width) ? dst.shiftLeft(i.imm() / 8, width, pc) : null;
                case Opcodes.OR:
                    ByteGather src = x ? reg[i.src()] : null;
                    if (dst == null || src == null || i.dst() == i.src() || !fits(dst, width) || !fits(src, width)) return null;
                    return dst.or(src, pc);
                case Opcodes.MOV:
                    ByteGather from = x && i.off() == 0 ? reg[i.src()] : null;
                    return from != null && fits(from, width) ? from.movedBy(pc) : null;
                default:
                    return null;
            }
        }

        /** A 32-bit operation sees only the low 4 bytes: the gather must lie in them. */
        private static boolean fits(ByteGather g, int width) { return g.highestByte() < width; }

        private static int mayWrite(Insn i) {
            int w = RegisterUse.defs(i);
            if (i.cls() == Opcodes.STX && Opcodes.mode(i.opcode()) == Opcodes.ATOMIC) w |= RegisterUse.bit(i.src()) | RegisterUse.R0;
            return w;
        }

        private void tryCombine(int root) {
            ByteGather g = result[root - from];
            BitSet tree = g.instructions;
            int dst = insns[root].dst();
            for (int pc = tree.nextSetBit(0); pc >= 0; pc = tree.nextSetBit(pc + 1)) {
                if (plan.dropped()[pc]) return; // part of a tree already combined
                if (pc == root) continue;
                if (readAfter[pc - from]) return;
                BitSet outside = (BitSet) readers[pc - from].clone();
                outside.andNot(tree);
                if (!outside.isEmpty()) return;
            }
            for (int pc = tree.nextSetBit(0); pc <= g.lastLoad; pc += RegisterUse.width(insns[pc])) {
                if (mayWriteMemory(insns[pc])) return;
            }
            for (int pc = g.lastLoad + 1; pc < root; pc += RegisterUse.width(insns[pc])) {
                if (tree.get(pc)) continue;
                Insn i = insns[pc];
                int touched = RegisterUse.uses(i) | mayWrite(i);
                CombinedLoad other = plan.at()[pc];
                if (other != null) touched |= RegisterUse.bit(other.dst()); // another tree's wide load
                if ((touched & RegisterUse.bit(dst)) != 0) return;
            }
            for (int pc = tree.nextSetBit(0); pc >= 0; pc = tree.nextSetBit(pc + 1)) plan.dropped()[pc] = true;
            plan.at()[g.lastLoad] = g.asLoad(dst);
        }

        private static boolean mayWriteMemory(Insn i) {
            int cls = i.cls();
            if (cls == Opcodes.ST || cls == Opcodes.STX) return true;
            if (cls == Opcodes.LD) return !i.isLddw();
            return (cls == Opcodes.JMP || cls == Opcodes.JMP32) && Opcodes.op(i.opcode()) == Opcodes.CALL;
        }
    }
}
