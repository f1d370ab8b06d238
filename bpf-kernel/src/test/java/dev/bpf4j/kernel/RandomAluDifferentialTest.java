package dev.bpf4j.kernel;

import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.LoadOptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Seeded random straight-line-and-forward-jump programs over every ALU operation (64 and 32 bit,
 * signed division, sign-extending moves, byte swaps), JMP/JMP32 conditions and stack loads/stores
 * (the whole frame is written first, so no load sees uninitialised stack).
 * Every register ends up folded into r0, so a wrong result anywhere shows. Each program the kernel
 * accepts must give the interpreter's r0 exactly; set {@code -Dbpf4j.seed} to replay.
 */
class RandomAluDifferentialTest {
    static final int[] ALU_OPS = {ADD, SUB, MUL, DIV, OR, AND, LSH, RSH, MOD, XOR, MOV, ARSH};
    static final int[] JMP_OPS = {JEQ, JGT, JGE, JSET, JNE, JSGT, JSGE, JLT, JLE, JSLT, JSLE};

    @BeforeEach void needsBpf() { KernelAssumptions.assumeBpf(); }

    @Test void kernelAndInterpreterAgreeOnRandomArithmetic() {
        long base = Long.getLong("bpf4j.seed", 0x6b65726eL);
        int accepted = 0, rejected = 0;
        List<String> mismatches = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            long seed = base + i;
            Program p = generate(seed);
            Differential.Outcome in = Differential.interp(p, LoadOptions.defaults(), null);
            Differential.Outcome k = Differential.kernel(p, LoadOptions.defaults(), null);
            if (k.error() instanceof KernelRejectedException) { rejected++; continue; }
            accepted++;
            if (!k.sameResult(in)) mismatches.add("seed " + seed + ": kernel " + k + ", interpreter " + in);
        }
        System.out.printf("random ALU programs: %d accepted by the kernel and compared, %d rejected%n", accepted, rejected);
        assertThat(mismatches).as("kernel vs interpreter").isEmpty();
        assertThat(accepted).as("programs the kernel accepted").isGreaterThan(200);
    }

    static Program generate(long seed) {
        Random rnd = new Random(seed);
        List<Insn> out = new ArrayList<>();
        for (int r = 0; r <= 9; r++) lddw(out, r, rnd.nextLong());
        for (int slot = -512; slot < 0; slot += 8) out.add(new Insn(ST | MEM | DW, 10, 0, slot, rnd.nextInt()));
        int body = 20 + rnd.nextInt(40);
        for (int i = 0; i < body; i++) out.add(randomInsn(rnd, body - i));
        for (int r = 1; r <= 9; r++) { // r0 = r0 * FNV prime ^ rK, for every register
            out.add(new Insn(ALU64 | MUL | K, 0, 0, 0, 0x01000193));
            out.add(new Insn(ALU64 | XOR | X, 0, r, 0, 0));
        }
        out.add(new Insn(JMP | EXIT, 0, 0, 0, 0));
        return new Program("random_" + seed, out);
    }

    /** One instruction; {@code left} = slots after it before the fold (bounds forward jumps). */
    static Insn randomInsn(Random rnd, int left) {
        int dst = rnd.nextInt(10), src = rnd.nextInt(10);
        int cls = rnd.nextBoolean() ? ALU64 : ALU;
        int width = cls == ALU64 ? 64 : 32;
        switch (rnd.nextInt(10)) {
            case 0: case 1: case 2: case 3: {
                int op = ALU_OPS[rnd.nextInt(ALU_OPS.length)];
                boolean shift = op == LSH || op == RSH || op == ARSH;
                int imm = shift ? rnd.nextInt(width) : (rnd.nextInt(4) == 0 ? rnd.nextInt(7) - 3 : rnd.nextInt());
                if ((op == DIV || op == MOD) && imm == 0) imm = 3;
                return new Insn(cls | op | K, dst, 0, 0, imm);
            }
            case 4: case 5: {
                int op = ALU_OPS[rnd.nextInt(ALU_OPS.length)];
                return new Insn(cls | op | X, dst, src, 0, 0);
            }
            case 6: { // cpu v4: sdiv/smod (off 1), movsx (off 8/16/32)
                switch (rnd.nextInt(3)) {
                    case 0: return new Insn(cls | (rnd.nextBoolean() ? DIV : MOD) | X, dst, src, 1, 0);
                    case 1: { int imm = rnd.nextInt(); return new Insn(cls | (rnd.nextBoolean() ? DIV : MOD) | K, dst, 0, 1, imm == 0 ? -7 : imm); }
                    default: {
                        int[] widths = cls == ALU64 ? new int[] {8, 16, 32} : new int[] {8, 16};
                        return new Insn(cls | MOV | X, dst, src, widths[rnd.nextInt(widths.length)], 0);
                    }
                }
            }
            case 7: { // neg, le/be, bswap
                switch (rnd.nextInt(4)) {
                    case 0: return new Insn(cls | NEG | K, dst, 0, 0, 0);
                    case 1: return new Insn(ALU | END | TO_LE, dst, 0, 0, new int[] {16, 32, 64}[rnd.nextInt(3)]);
                    case 2: return new Insn(ALU | END | TO_BE, dst, 0, 0, new int[] {16, 32, 64}[rnd.nextInt(3)]);
                    default: return new Insn(ALU64 | END | TO_LE, dst, 0, 0, new int[] {16, 32, 64}[rnd.nextInt(3)]);
                }
            }
            case 8: { // stack (initialised above) store or load, every size, aligned, sign-extending loads too
                int size = new int[] {B, H, W, DW}[rnd.nextInt(4)];
                int bytes = sizeBytes(size);
                int slot = -bytes * (1 + rnd.nextInt(512 / bytes));
                switch (rnd.nextInt(4)) {
                    case 0: return new Insn(STX | MEM | size, 10, src, slot, 0);
                    case 1: return new Insn(ST | MEM | size, 10, 0, slot, rnd.nextInt());
                    case 2: return new Insn(LDX | (size == DW ? MEM : MEMSX) | size, dst, 10, slot, 0);
                    default: return new Insn(LDX | MEM | size, dst, 10, slot, 0);
                }
            }
            default: { // forward conditional jump
                int jcls = rnd.nextBoolean() ? JMP : JMP32;
                int op = JMP_OPS[rnd.nextInt(JMP_OPS.length)];
                int off = rnd.nextInt(Math.max(1, left));
                return rnd.nextBoolean() ? new Insn(jcls | op | X, dst, src, off, 0)
                                         : new Insn(jcls | op | K, dst, 0, off, rnd.nextInt(9) - 4);
            }
        }
    }

    static void lddw(List<Insn> out, int dst, long v) {
        out.add(new Insn(LDDW, dst, 0, 0, (int) v));
        out.add(new Insn(0, 0, 0, 0, (int) (v >>> 32)));
    }
}
