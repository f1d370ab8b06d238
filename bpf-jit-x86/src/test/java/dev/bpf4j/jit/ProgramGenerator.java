package dev.bpf4j.jit;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.jit.I.*;

/**
 * Seeded random programs for differential testing. Register roles keep the outcome independent of
 * where each engine puts its stack: r1 and r9 hold pointers (r1 = the region, r9 = r10 - 192) and
 * are only ever used as load/store bases; r0 and r2-r8 hold data. The body mixes ALU of every
 * kind with edge operands, checked and unchecked memory (some accesses out of bounds, some atomics
 * misaligned), forward and backward jumps, helper calls and bpf-to-bpf calls down a chain of
 * {@link #CHAIN} functions. Main uses 384 bytes of stack and each function 16, so every chain fits
 * Linux's 512 bytes for all frames together, and no function calls itself: the verifier refuses
 * both, as Linux does (docs/verifier.md, "Calls").
 */
final class ProgramGenerator {
    static final int REGION = 256;
    /** Functions in the call chain: main and these make Linux's 8 frames. */
    static final int CHAIN = 7;
    /** Main's frame: [r10 - MAIN_STACK, r10). */
    private static final int MAIN_STACK = 384;
    static final int HELPER_MIX = 1, HELPER_SUM = 2, HELPER_EXIT = 3;

    private static final int[] ALU_OPS = {ADD, SUB, MUL, DIV, OR, AND, LSH, RSH, NEG, MOD, XOR, MOV, ARSH};
    private static final int[] JMP_OPS = {JEQ, JGT, JGE, JSET, JNE, JSGT, JSGE, JLT, JLE, JSLT, JSLE};
    private static final int[] SIZES = {B, H, W, DW};
    private static final int[] ATOMIC_OPS = {ADD, OR, AND, XOR, ADD | FETCH, OR | FETCH, AND | FETCH, XOR | FETCH, XCHG, CMPXCHG};
    private static final int[] DATA = {0, 2, 3, 4, 5, 6, 7, 8};
    private static final long[] EDGES = {0, 1, -1, 2, Long.MIN_VALUE, Long.MAX_VALUE, Integer.MIN_VALUE, Integer.MAX_VALUE,
            0xffffffffL, 0x80000000L, 63, 64, 31, 32};

    private final Random rnd;
    private final long region;

    ProgramGenerator(long seed, long region) {
        this.rnd = new Random(seed);
        this.region = region;
    }

    Program generate(String name) {
        List<Object> main = new ArrayList<>();
        for (int r : DATA) main.add(lddw(r, value()));
        main.add(mov64r(9, 10));
        main.add(alu64(ADD, 9, -MAIN_STACK / 2));
        for (int slot = -MAIN_STACK; slot < 0; slot += 8) main.add(st(DW, 10, slot, rnd.nextInt()));
        int body = 20 + rnd.nextInt(60);
        List<Insn> flat = new ArrayList<>();
        for (Object o : main) addAll(flat, o);
        List<Object> parts = new ArrayList<>();
        for (int i = 0; i < body; i++) parts.add(randomPart(i, body));
        // Store every data register and some stack slots into the region: the final memory shows them.
        List<Insn> tail = new ArrayList<>();
        for (int k = 0; k < DATA.length; k++) tail.add(stx(DW, 1, DATA[k], REGION - 96 + 8 * k));
        for (int k = 0; k < 4; k++) {
            tail.add(ldx(DW, 2, 10, -8 * (1 + rnd.nextInt(MAIN_STACK / 8))));
            tail.add(stx(DW, 1, 2, REGION - 32 + 8 * k));
        }
        tail.add(exit());
        // Lay the parts out, then aim each jump at the first slot of its target part (never into an lddw).
        int[] partStart = new int[body + 1];
        for (int i = 0; i < body; i++) {
            partStart[i] = flat.size();
            Object o = parts.get(i);
            if (o instanceof PendingJump) flat.add(null);
            else addAll(flat, o);
        }
        partStart[body] = flat.size();
        flat.addAll(tail);
        for (int i = 0; i < body; i++) {
            if (parts.get(i) instanceof PendingJump) {
                PendingJump j = (PendingJump) parts.get(i);
                int pc = partStart[i];
                Insn t = j.template();
                flat.set(pc, new Insn(t.opcode(), t.dst(), t.src(), partStart[j.targetPart()] - pc - 1, t.imm()));
            }
        }
        int subStart = flat.size();
        // Fix up local calls (placeholders with src = 1) to the first function of the chain.
        for (int pc = 0; pc < subStart; pc++) {
            Insn in = flat.get(pc);
            if (in.opcode() == (JMP | CALL) && in.src() == 1) flat.set(pc, callLocal(subStart - pc - 1));
        }
        for (int k = 0; k < CHAIN; k++) flat.addAll(subprogram(k == CHAIN - 1));
        return new Program(name, flat);
    }

    /**
     * sub(r1 = region, r2 = depth, r3, r4): calls the next function of the chain while r2 lasts
     * (the last one stops there), touches its own frame, returns a mix.
     */
    private List<Insn> subprogram(boolean last) {
        List<Insn> s = new ArrayList<>();
        s.add(stx(DW, 10, 3, -8));                  // 0: own frame
        s.add(mov64r(0, 3));                        // 1
        s.add(alu64r(XOR, 0, 4));                   // 2
        s.add(jmp(JEQ, 2, 0, 6));                   // 3 -> 10 (base case)
        s.add(alu64(SUB, 2, 1));                    // 4
        s.add(mov64r(6, 0));                        // 5: r6 survives the call
        s.add(last ? mov64r(0, 2) : callLocal(4));  // 6 -> the next function (11 slots on)
        s.add(alu64r(ADD, 0, 6));                   // 7
        s.add(ldx(DW, 3, 10, -8));                  // 8
        s.add(alu64r(ADD, 0, 3));                   // 9
        s.add(exit());                              // 10
        return s;
    }

    /** A jump whose offset is set once the parts are laid out. */
    private record PendingJump(Insn template, int targetPart) {}

    private Object randomPart(int index, int body) {
        int dst = DATA[rnd.nextInt(DATA.length)], src = DATA[rnd.nextInt(DATA.length)];
        switch (rnd.nextInt(16)) {
            case 0: case 1: case 2: return alu(dst, src);
            case 3: case 4: return edgeOperand(dst, src);
            case 5: return new Insn[]{lddw(dst, value())[0], lddw(dst, value())[1]};
            case 6: return regionAccess(dst, src);
            case 7: return stackAccess(dst, src);
            case 8: return atomic(src);
            case 9: return end(dst);
            case 10: case 11: case 12: return jump(dst, src, index, body);
            case 13: return helper();
            case 14: return localCall();
            default: return new Insn[]{st(DW, 10, -8 * (1 + rnd.nextInt(MAIN_STACK / 8)), rnd.nextInt()), ldx(DW, dst, 10, -8 * (1 + rnd.nextInt(MAIN_STACK / 8)))};
        }
    }

    /** An ALU instruction whose register operand was just set to an edge value (0, -1, MIN, ...). */
    private Insn[] edgeOperand(int dst, int src) {
        Insn[] l = lddw(src, EDGES[rnd.nextInt(EDGES.length)]);
        return new Insn[]{l[0], l[1], alu(dst, src)};
    }

    private long value() {
        return rnd.nextBoolean() ? EDGES[rnd.nextInt(EDGES.length)] : rnd.nextLong() >> rnd.nextInt(64);
    }

    private Insn alu(int dst, int src) {
        int cls = rnd.nextBoolean() ? ALU64 : ALU, op = ALU_OPS[rnd.nextInt(ALU_OPS.length)];
        if (op == NEG) return new Insn(cls | NEG, dst, 0, 0, 0);
        if (op == MOV && rnd.nextInt(3) == 0) {
            int[] widths = cls == ALU64 ? new int[]{8, 16, 32} : new int[]{8, 16};
            return new Insn(cls | MOV | X, dst, src, widths[rnd.nextInt(widths.length)], 0);
        }
        int off = (op == DIV || op == MOD) ? rnd.nextInt(2) : 0;
        if (rnd.nextBoolean()) return new Insn(cls | op | X, dst, src, off, 0);
        int imm = rnd.nextBoolean() ? (int) EDGES[rnd.nextInt(EDGES.length)] : rnd.nextInt(9) - 4;
        return new Insn(cls | op | K, dst, 0, off, imm);
    }

    private Insn end(int dst) {
        int bits = 16 << rnd.nextInt(3);
        switch (rnd.nextInt(3)) {
            case 0: return I.end(TO_LE, dst, bits);
            case 1: return I.end(TO_BE, dst, bits);
            default: return bswap(dst, bits);
        }
    }

    /** Through r1: mostly inside the region, sometimes just past either end. */
    private Insn regionAccess(int dst, int src) {
        int size = SIZES[rnd.nextInt(4)], bytes = sizeBytes(size);
        int off = rnd.nextInt(20) == 0 ? REGION - bytes + 1 + rnd.nextInt(8) - 4 : rnd.nextInt(REGION / bytes) * bytes;
        if (rnd.nextInt(40) == 0) off = -bytes;
        switch (rnd.nextInt(4)) {
            case 0: return ldx(size, dst, 1, off);
            case 1: return size == DW ? ldx(size, dst, 1, off) : ldxsx(size, dst, 1, off);
            case 2: return st(size, 1, off, rnd.nextInt());
            default: return stx(size, 1, src, off);
        }
    }

    /** Through r9 = r10 - 192: anywhere in main's frame; past r10 is out of bounds. */
    private Insn stackAccess(int dst, int src) {
        int size = SIZES[rnd.nextInt(4)], bytes = sizeBytes(size), half = MAIN_STACK / 2;
        int off = (rnd.nextInt(MAIN_STACK / bytes) * bytes) - half;
        if (rnd.nextInt(20) == 0) off = half - bytes + 1 + rnd.nextInt(16); // straddles or passes r10
        return rnd.nextBoolean() ? ldx(size, dst, 9, off) : stx(size, 9, src, off);
    }

    private Insn atomic(int src) {
        int size = rnd.nextBoolean() ? DW : W, bytes = sizeBytes(size);
        int op = ATOMIC_OPS[rnd.nextInt(ATOMIC_OPS.length)];
        boolean stack = rnd.nextInt(3) == 0;
        int off = stack ? -8 * (1 + rnd.nextInt(MAIN_STACK / 16)) : rnd.nextInt(REGION / bytes) * bytes;
        if (rnd.nextInt(20) == 0) off += 1 + rnd.nextInt(bytes - 1); // misaligned
        return I.atomic(size, stack ? 9 : 1, src, off, op);
    }

    private PendingJump jump(int dst, int src, int index, int body) {
        int cls = rnd.nextBoolean() ? JMP : JMP32, op = JMP_OPS[rnd.nextInt(JMP_OPS.length)];
        int target = rnd.nextInt(10) == 0 ? Math.max(0, index - rnd.nextInt(6)) : index + 1 + rnd.nextInt(body - index);
        Insn t;
        if (rnd.nextInt(12) == 0) t = ja(0);
        else if (rnd.nextBoolean()) t = new Insn(cls | op | X, dst, src, 0, 0);
        else t = new Insn(cls | op | K, dst, 0, 0, (int) (rnd.nextBoolean() ? value() : rnd.nextInt(9) - 4));
        return new PendingJump(t, target);
    }

    /** A helper call; r1-r5 are reloaded afterwards (the call clobbers them). */
    private Insn[] helper() {
        List<Insn> s = new ArrayList<>();
        int id = 1 + rnd.nextInt(3);
        if (id == HELPER_SUM) {
            // r1 = pointer (region or stack), r2 = length: sometimes inaccessible.
            s.add(mov64r(1, rnd.nextBoolean() ? 1 : 9));
            s.add(mov64(2, rnd.nextInt(300)));
        }
        if (id == HELPER_EXIT) s.add(mov64(1, rnd.nextInt(8)));
        s.add(call(id));
        reload(s);
        return s.toArray(new Insn[0]);
    }

    private Insn[] localCall() {
        List<Insn> s = new ArrayList<>();
        s.add(mov64(2, rnd.nextInt(CHAIN + 1)));   // how far down the chain
        s.add(call(0));                     // placeholder, fixed up to call local
        s.set(1, new Insn(JMP | CALL, 0, 1, 0, -1));
        reload(s);
        return s.toArray(new Insn[0]);
    }

    private void reload(List<Insn> s) {
        for (Insn i : lddw(1, region)) s.add(i);
        for (int r = 2; r <= 5; r++) for (Insn i : lddw(r, value())) s.add(i);
    }

    private static void addAll(List<Insn> out, Object o) {
        if (o instanceof Insn) out.add((Insn) o);
        else for (Insn i : (Insn[]) o) out.add(i);
    }
}
