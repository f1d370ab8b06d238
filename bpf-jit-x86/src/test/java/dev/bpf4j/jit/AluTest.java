package dev.bpf4j.jit;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.jit.I.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every ALU operation, both widths, immediate and register forms, over every (dst, src) register
 * pair — so the rax/rdx (div), rcx (shift) clashes are all exercised — checking the result and
 * that no other register changed.
 */
class AluTest {
    private static final long[] VALUES = {0, 1, -1, 7, -7, 63, 64, 65, 31, 32, 33, Long.MIN_VALUE, Long.MAX_VALUE,
            Integer.MIN_VALUE, 0xffffffffL, 0x8000000000000001L, 0x123456789abcdef0L, 0xfedcba9876543210L, 0x80000000L};
    private static final int[] OPS = {ADD, SUB, MUL, DIV, OR, AND, LSH, RSH, MOD, XOR, MOV, ARSH};
    private static final int[] IMMS = {0, 1, -1, 3, -3, 31, 32, 63, 64, 100, Integer.MIN_VALUE, Integer.MAX_VALUE, 0x12345};

    private static long sentinel(int r) { return 0x5a5a000000000000L | ((long) r << 40) | (r * 0x1111L) | 0xdead0000L; }

    /** Runs {@code body} with every register preset, then returns r0..r9 as the program left them. */
    static long[] regsAfter(long[] init, Insn... body) { return regsAfter(init, List.of(), body); }

    /** As above, with memory regions the body may touch. */
    static long[] regsAfter(long[] init, List<dev.bpf4j.runtime.MemoryRegion> regions, Insn... body) {
        List<Object> parts = new ArrayList<>();
        for (int r = 0; r <= 9; r++) parts.add(lddw(r, init[r]));
        for (Insn i : body) parts.add(i);
        for (int r = 0; r <= 9; r++) parts.add(stx(DW, 10, r, -80 + 8 * r));
        parts.add(mov64r(1, 10));
        parts.add(alu64(ADD, 1, -80));
        parts.add(call(Jit.DUMP));
        parts.add(mov64(0, 0));
        parts.add(exit());
        long[] out = new long[10];
        Program p = prog("alu", parts.toArray());
        RunContext.Builder ctx = RunContext.builder();
        regions.forEach(ctx::region);
        Jit.run(p, LoadOptions.defaults().withHelpers(Jit.dumpHelper(out)), ctx.build());
        return out;
    }

    private static long[] init() {
        long[] v = new long[10];
        for (int r = 0; r <= 9; r++) v[r] = sentinel(r);
        return v;
    }

    private static void check(String what, long[] expect, long[] got) {
        for (int r = 0; r <= 9; r++) {
            assertThat(got[r]).as("%s: r%d (expected 0x%x, got 0x%x)", what, r, expect[r], got[r]).isEqualTo(expect[r]);
        }
    }

    @Test
    void registerFormsOverAllRegisterPairs() {
        int n = 0;
        for (int op : OPS) for (boolean w : new boolean[]{true, false}) for (boolean signed : new boolean[]{false, true}) {
            if (signed && op != DIV && op != MOD) continue;
            for (int dst = 0; dst <= 9; dst++) for (int src = 0; src <= 9; src++) {
                long a = VALUES[(dst * 7 + src * 3 + op) % VALUES.length];
                long b = VALUES[(dst + src * 5 + op / 16) % VALUES.length];
                if (dst == src) b = a;
                long[] in = init();
                in[dst] = a;
                in[src] = b;
                long[] expect = in.clone();
                expect[dst] = Ref.alu(op, w, signed, a, b);
                Insn insn = new Insn((w ? ALU64 : ALU) | X | op, dst, src, signed ? 1 : 0, 0);
                check(String.format("op 0x%x w=%b signed=%b r%d=0x%x r%d=0x%x", op, w, signed, dst, a, src, b), expect, regsAfter(in, insn));
                n++;
            }
        }
        assertThat(n).isGreaterThan(2000);
    }

    @Test
    void valueEdgesForEveryOperation() {
        for (int op : OPS) for (boolean w : new boolean[]{true, false}) for (boolean signed : new boolean[]{false, true}) {
            if (signed && op != DIV && op != MOD) continue;
            for (long a : VALUES) for (long b : VALUES) {
                int dst = 3, src = 4; // rdx and rcx: the div and shift clash registers
                long[] in = init();
                in[dst] = a;
                in[src] = b;
                long[] expect = in.clone();
                expect[dst] = Ref.alu(op, w, signed, a, b);
                Insn insn = new Insn((w ? ALU64 : ALU) | X | op, dst, src, signed ? 1 : 0, 0);
                long[] got = regsAfter(in, insn);
                assertThat(got[dst]).as("op 0x%x w=%b signed=%b a=0x%x b=0x%x", op, w, signed, a, b).isEqualTo(expect[dst]);
            }
        }
    }

    @Test
    void immediateForms() {
        for (int op : OPS) for (boolean w : new boolean[]{true, false}) for (boolean signed : new boolean[]{false, true}) {
            if (signed && op != DIV && op != MOD) continue;
            for (int dst = 0; dst <= 9; dst++) for (int imm : IMMS) {
                long a = VALUES[(dst * 3 + imm) & 0xf % VALUES.length];
                long[] in = init();
                in[dst] = a;
                long[] expect = in.clone();
                expect[dst] = Ref.alu(op, w, signed, a, w ? (long) imm : imm);
                Insn insn = new Insn((w ? ALU64 : ALU) | K | op, dst, 0, signed ? 1 : 0, imm);
                check(String.format("op 0x%x K w=%b signed=%b r%d=0x%x imm=%d", op, w, signed, dst, a, imm), expect, regsAfter(in, insn));
            }
        }
    }

    @Test
    void negMovsxAndByteSwaps() {
        long v = 0x1122334455667788L, n = 0xfedcba98f6e5d4c3L;
        for (int dst = 0; dst <= 9; dst++) {
            for (long a : new long[]{v, n}) {
                int src = (dst + 3) % 10;
                long[] in = init();
                in[dst] = a;
                in[src] = a;
                expectDst(in, dst, -a, new Insn(ALU64 | NEG, dst, 0, 0, 0));
                expectDst(in, dst, (-(int) a) & 0xffffffffL, new Insn(ALU | NEG, dst, 0, 0, 0));
                expectDst(in, dst, (byte) a, movsx64(dst, src, 8));
                expectDst(in, dst, (short) a, movsx64(dst, src, 16));
                expectDst(in, dst, (int) a, movsx64(dst, src, 32));
                expectDst(in, dst, ((byte) a) & 0xffffffffL, movsx32(dst, src, 8));
                expectDst(in, dst, ((short) a) & 0xffffffffL, movsx32(dst, src, 16));
                expectDst(in, dst, a & 0xffffL, end(TO_LE, dst, 16));
                expectDst(in, dst, a & 0xffffffffL, end(TO_LE, dst, 32));
                expectDst(in, dst, a, end(TO_LE, dst, 64));
                expectDst(in, dst, Short.reverseBytes((short) a) & 0xffffL, end(TO_BE, dst, 16));
                expectDst(in, dst, Integer.reverseBytes((int) a) & 0xffffffffL, end(TO_BE, dst, 32));
                expectDst(in, dst, Long.reverseBytes(a), end(TO_BE, dst, 64));
                expectDst(in, dst, Short.reverseBytes((short) a) & 0xffffL, bswap(dst, 16));
                expectDst(in, dst, Integer.reverseBytes((int) a) & 0xffffffffL, bswap(dst, 32));
                expectDst(in, dst, Long.reverseBytes(a), bswap(dst, 64));
                expectDst(in, dst, a & 0xffffffffL, new Insn(ALU | X | MOV, dst, dst, 0, 0));
            }
        }
    }

    @Test
    void loadImmediates() {
        for (long imm : new long[]{0, 1, -1, 0xffffffffL, 0x80000000L, -0x80000000L, 0x123456789L, Long.MIN_VALUE}) {
            for (int dst = 0; dst <= 9; dst++) {
                long[] in = init();
                long[] expect = in.clone();
                expect[dst] = imm;
                check("lddw " + imm, expect, regsAfter(in, lddw(dst, imm)));
                expect[dst] = (int) imm;
                check("mov64 " + (int) imm, expect, regsAfter(in, mov64(dst, (int) imm)));
                expect[dst] = ((int) imm) & 0xffffffffL;
                check("mov32 " + (int) imm, expect, regsAfter(in, alu32(MOV, dst, (int) imm)));
            }
        }
    }

    private static void expectDst(long[] in, int dst, long value, Insn insn) {
        long[] expect = in.clone();
        expect[dst] = value;
        check(insn + " on 0x" + Long.toHexString(in[dst]), expect, regsAfter(in, insn));
    }
}
