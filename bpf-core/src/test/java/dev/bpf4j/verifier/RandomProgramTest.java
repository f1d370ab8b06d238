package dev.bpf4j.verifier;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static dev.bpf4j.verifier.V.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Seeded random programs: the validator either accepts or throws a {@link VerifierException} with
 * a pc inside the program, never anything else; accepted programs have consistent subprograms.
 */
class RandomProgramTest {
    private static final long SEED = 0x5eed_b9f4L;
    private static final int[] COMMON = {0x07, 0x0f, 0xb7, 0xbf, 0x15, 0x1d, 0x05, 0x06, 0x85, 0x95, 0x18, 0x79, 0x7b, 0x7a,
            0xdb, 0xc3, 0x61, 0x63, 0x81, 0x34, 0x3f, 0x9c, 0xd4, 0xdc, 0xd7, 0x87, 0x56, 0xae};

    @Test
    void neverFailsWithAnythingButAVerifierException() {
        Random rnd = new Random(SEED);
        int accepted = 0;
        for (int round = 0; round < 20_000; round++) {
            Program p = randomProgram(rnd, round % 2 == 0);
            try {
                ValidatedProgram v = Validator.analyze(p, OPTIONS);
                accepted++;
                checkSubprograms(p, v);
            } catch (VerifierException e) {
                assertThat(e.pc()).as("seed %x round %d: %s", SEED, round, e.getMessage()).isBetween(0, p.length() - 1);
            } catch (RuntimeException e) {
                fail("seed %x round %d: %s on %s", SEED, round, e, p.insns());
            }
        }
        assertThat(accepted).as("random programs accepted (seed %x)", SEED).isGreaterThan(100);
    }

    private static void checkSubprograms(Program p, ValidatedProgram v) {
        int expectedStart = 0;
        for (Subprogram s : v.subprograms()) {
            assertThat(s.start()).isEqualTo(expectedStart);
            Insn last = p.insn(s.end() - 1);
            assertThat(last.opcode()).isIn(0x95, 0x05, 0x06);
            expectedStart = s.end();
        }
        assertThat(expectedStart).isEqualTo(p.length());
    }

    /** A slot whose fields fit its opcode, with small offsets so that jumps often stay inside. */
    private static Insn plausibleSlot(Random rnd) {
        int op = COMMON[rnd.nextInt(COMMON.length)];
        int cls = op & 7;
        boolean x = (op & 8) != 0;
        int dst = 1 + rnd.nextInt(9);
        int src = rnd.nextInt(4) == 0 ? 10 : rnd.nextInt(10);
        switch (cls) {
            case 4: case 7:
                if ((op & 0xf0) == 0xd0) return new Insn(op, dst, 0, 0, 16 << rnd.nextInt(3));
                if ((op & 0xf0) == 0x80) return new Insn(op, dst, 0, 0, 0);
                return x ? new Insn(op, dst, src, 0, 0) : new Insn(op, dst, 0, 0, rnd.nextInt(100));
            case 5: case 6:
                int off = rnd.nextInt(7) - 3;
                if (op == 0x95) return EXIT;
                if (op == 0x85) return rnd.nextBoolean() ? callHelper(HELPER_ID) : callLocal(off);
                if (op == 0x05) return ja(off);
                if (op == 0x06) return new Insn(op, 0, 0, 0, off);
                return x ? new Insn(op, dst, src, off, 0) : new Insn(op, dst, 0, off, rnd.nextInt(10));
            case 0: return new Insn(op, dst, 0, 0, rnd.nextInt());
            case 1: return new Insn(op, dst, 10, -8 * (1 + rnd.nextInt(3)), 0);
            case 2: return new Insn(op, 10, 0, -8 * (1 + rnd.nextInt(3)), rnd.nextInt());
            default:
                int atomic = (op & 0xe0) == 0xc0 ? new int[]{0x00, 0x01, 0x40, 0xe1, 0xf1}[rnd.nextInt(5)] : 0;
                return new Insn(op, 10, src == 10 ? 0 : src, -8 * (1 + rnd.nextInt(3)), atomic);
        }
    }

    /** One field set to an arbitrary value. */
    private static Insn mutate(Random rnd, Insn i) {
        switch (rnd.nextInt(5)) {
            case 0: return new Insn(rnd.nextInt(256), i.dst(), i.src(), i.off(), i.imm());
            case 1: return new Insn(i.opcode(), rnd.nextInt(16), i.src(), i.off(), i.imm());
            case 2: return new Insn(i.opcode(), i.dst(), rnd.nextInt(16), i.off(), i.imm());
            case 3: return new Insn(i.opcode(), i.dst(), i.src(), rnd.nextInt(65536) - 32768, i.imm());
            default: return new Insn(i.opcode(), i.dst(), i.src(), i.off(), rnd.nextInt());
        }
    }

    /** Mostly-plausible slots (common opcodes, small registers and offsets) or fully random bytes. */
    private static Program randomProgram(Random rnd, boolean plausible) {
        int n = 1 + rnd.nextInt(12);
        List<Insn> insns = new ArrayList<>();
        if (plausible) insns.addAll(List.of(initAll()));
        for (int i = 0; i < n; i++) {
            if (plausible) {
                insns.add(rnd.nextInt(10) == 0 ? mutate(rnd, plausibleSlot(rnd)) : plausibleSlot(rnd));
            } else {
                insns.add(new Insn(rnd.nextInt(256), rnd.nextInt(16), rnd.nextInt(16), rnd.nextInt(65536) - 32768, rnd.nextInt()));
            }
        }
        if (plausible) insns.add(EXIT);
        return new Program("random", insns);
    }
}
