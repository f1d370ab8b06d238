package dev.bpf4j.jit;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.jit.I.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Unsigned div/mod by a constant (shift, mask or multiply-high, never {@code div}) in every
 * destination register, both widths, over dividends around the divisor and the width's edges;
 * the other registers must be unchanged (rax/rdx are parked around the multiply).
 */
class DivisionByConstantTest {
    private static final int[] DIVISORS = {1, 2, 3, 5, 7, 10, 16, 100, 641, 1000003, 0x40000000, Integer.MAX_VALUE,
            -1, -2, -3, -7, Integer.MIN_VALUE, -1000003, 0x12345679};
    private static final long[] VALUES = {0, 1, 2, 3, 6, 7, 99, 100, 101, 1000002, 1000003, 1000004, 0x7fffffffL,
            0x80000000L, 0xffffffffL, 0x100000000L, 0x123456789abcdefL, Long.MAX_VALUE, Long.MIN_VALUE, -1, -2,
            0xfedcba9876543210L};

    @Test
    void everyRegisterWidthAndOperation() {
        long mem = NativeMemory.allocate(8L * 10 * VALUES.length);
        try {
            for (int imm : DIVISORS) for (boolean w : new boolean[]{true, false}) for (int op : new int[]{DIV, MOD}) {
                List<Object> parts = new ArrayList<>();
                for (int r = 0; r <= 9; r++) if (r != 1) parts.add(lddw(r, 0x5a5a0000L + r));
                int slot = 0;
                for (int dst = 0; dst <= 9; dst++) {
                    if (dst == 1) continue; // r1 holds the output pointer
                    for (long v : VALUES) {
                        parts.add(lddw(dst, v));
                        parts.add(new Insn((w ? ALU64 : ALU) | K | op, dst, 0, 0, imm));
                        parts.add(stx(DW, 1, dst, 8 * slot++));
                        parts.add(lddw(dst, 0x5a5a0000L + dst));
                    }
                }
                for (int r = 0; r <= 9; r++) if (r != 1) parts.add(stx(DW, 1, r, 8 * slot++));
                Program p = prog("divk", parts.toArray());
                RunContext ctx = RunContext.builder().arg(1, mem).region(new MemoryRegion("out", mem, 8L * slot, true)).build();
                Program withExit = prog("divk", concat(p, mov64(0, 0), exit()));
                Jit.run(withExit, LoadOptions.defaults(), ctx);
                int at = 0;
                for (int dst = 0; dst <= 9; dst++) {
                    if (dst == 1) continue;
                    for (long v : VALUES) {
                        long expect = Ref.alu(op, w, false, v, w ? (long) imm : imm);
                        assertThat(NativeMemory.getLong(mem + 8L * at++))
                                .as("%s%s r%d=0x%x, imm %d", op == DIV ? "div" : "mod", w ? "64" : "32", dst, v, imm).isEqualTo(expect);
                    }
                }
                for (int r = 0; r <= 9; r++) {
                    if (r == 1) continue;
                    assertThat(NativeMemory.getLong(mem + 8L * at++)).as("r%d kept, imm %d", r, imm).isEqualTo(0x5a5a0000L + r);
                }
            }
        } finally {
            NativeMemory.free(mem);
        }
    }

    private static Object[] concat(Program p, Insn... tail) {
        List<Object> out = new ArrayList<>(p.insns());
        for (Insn i : tail) out.add(i);
        return out.toArray();
    }
}
