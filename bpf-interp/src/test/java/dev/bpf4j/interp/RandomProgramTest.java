package dev.bpf4j.interp;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.verifier.Validator;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static dev.bpf4j.interp.Asm.*;
import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Seeded random programs (ALU, stack memory, forward and backward jumps) that the validator
 * accepts: each must end with r0 or a {@link BpfRuntimeException}, and give the same outcome on
 * every run, including a run on a reused machine. Prints the seed of a failing program.
 */
class RandomProgramTest {
    static final int[] ALU_OPS = {ADD, SUB, MUL, DIV, OR, AND, LSH, RSH, MOD, XOR, MOV, ARSH};
    static final int[] JMP_OPS = {JEQ, JGT, JGE, JSET, JNE, JSGT, JSGE, JLT, JLE, JSLT, JSLE};
    static final int[] SIZES = {B, H, W, DW};

    @Test
    void randomProgramsRunDeterministically() {
        long base = Long.getLong("bpf4j.seed", 20261202L);
        int validated = 0;
        for (int i = 0; i < 400; i++) {
            long seed = base + i;
            Program p = generate(new Random(seed));
            try {
                Validator.validate(p, LoadOptions.defaults());
            } catch (BpfLoadException rejected) {
                continue;
            }
            validated++;
            try (Executable e = Runner.load(p)) {
                String first = outcome(e), second = outcome(e);
                assertThat(second).as("seed " + seed).isEqualTo(first);
                try (Executable fresh = Runner.load(p)) {
                    assertThat(outcome(fresh)).as("seed " + seed).isEqualTo(first);
                }
            } catch (RuntimeException unexpected) {
                fail("seed " + seed + ": " + unexpected, unexpected);
            }
        }
        assertThat(validated).as("programs the validator accepted").isGreaterThan(100);
    }

    static String outcome(Executable e) {
        try {
            return "r0=" + e.run(RunContext.builder().budget(200).build());
        } catch (BpfRuntimeException x) {
            return x.kind() + "@" + x.pc();
        }
    }

    static Program generate(Random rnd) {
        List<Object> out = new ArrayList<>();
        for (int r = 0; r <= 9; r++) out.add(lddw(r, rnd.nextLong()));
        for (int slot = -512; slot < 0; slot += 8) out.add(st(DW, 10, slot, rnd.nextInt()));
        int body = 20 + rnd.nextInt(30);
        for (int i = 0; i < body; i++) out.add(randomInsn(rnd, body - i));
        out.add(exit());
        return prog(out.toArray());
    }

    /** One instruction; {@code left} = instructions after it before the final exit (bounds forward jumps). */
    static Insn randomInsn(Random rnd, int left) {
        int dst = rnd.nextInt(10), src = rnd.nextInt(10);
        switch (rnd.nextInt(8)) {
            case 0: case 1: case 2: {
                int cls = rnd.nextBoolean() ? ALU64 : ALU, op = ALU_OPS[rnd.nextInt(ALU_OPS.length)];
                int off = (op == DIV || op == MOD) ? rnd.nextInt(2) : 0;
                if (rnd.nextBoolean()) return new Insn(cls | op | X, dst, src, off, 0);
                int imm = (op == LSH || op == RSH || op == ARSH) ? rnd.nextInt(cls == ALU64 ? 64 : 32) : rnd.nextInt(7) - 3;
                return new Insn(cls | op | K, dst, 0, off, imm);
            }
            case 3: {
                int size = SIZES[rnd.nextInt(4)], bytes = sizeBytes(size);
                int slot = -bytes * (1 + rnd.nextInt(512 / bytes));
                return rnd.nextBoolean() ? ldx(size, dst, 10, slot) : stx(size, 10, src, slot);
            }
            case 4:
                return new Insn(ALU64 | END, dst, 0, 0, 16 << rnd.nextInt(3));
            default: {
                int cls = rnd.nextBoolean() ? JMP : JMP32, op = JMP_OPS[rnd.nextInt(JMP_OPS.length)];
                int off = rnd.nextInt(4) == 0 ? -1 - rnd.nextInt(5) : rnd.nextInt(left + 1);
                return rnd.nextBoolean() ? new Insn(cls | op | X, dst, src, off, 0)
                        : new Insn(cls | op | K, dst, 0, off, rnd.nextInt(7) - 3);
            }
        }
    }
}
