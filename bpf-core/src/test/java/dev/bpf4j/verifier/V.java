package dev.bpf4j.verifier;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Test support: raw slots for the common instructions and assertions on the validator's verdict. */
final class V {
    private V() {}

    static final int HELPER_ID = 1;
    static final LoadOptions OPTIONS = LoadOptions.defaults()
            .withHelpers(HelperRegistry.builder().add(HELPER_ID, "test_helper", (c, a, b, d, e, f) -> 0).build());

    static final Insn EXIT = new Insn(0x95, 0, 0, 0, 0);

    /** {@code dst = imm} (ALU64 MOV K). */
    static Insn mov(int dst, int imm) { return new Insn(0xb7, dst, 0, 0, imm); }

    /** {@code dst = src} (ALU64 MOV X). */
    static Insn movReg(int dst, int src) { return new Insn(0xbf, dst, src, 0, 0); }

    /** {@code dst += src} (ALU64 ADD X). */
    static Insn addReg(int dst, int src) { return new Insn(0x0f, dst, src, 0, 0); }

    /** {@code goto pc + 1 + off}. */
    static Insn ja(int off) { return new Insn(0x05, 0, 0, off, 0); }

    /** {@code if dst == imm goto pc + 1 + off}. */
    static Insn jeq(int dst, int imm, int off) { return new Insn(0x15, dst, 0, off, imm); }

    static Insn jne(int dst, int imm, int off) { return new Insn(0x55, dst, 0, off, imm); }

    static Insn callHelper(int id) { return new Insn(0x85, 0, 0, 0, id); }

    static Insn callLocal(int imm) { return new Insn(0x85, 0, 1, 0, imm); }

    static Insn[] lddw(int dst, long value) {
        return new Insn[]{new Insn(0x18, dst, 0, 0, (int) value), new Insn(0, 0, 0, 0, (int) (value >>> 32))};
    }

    /** A program from slots and slot arrays (for lddw). */
    static Program prog(Object... parts) {
        List<Insn> insns = new ArrayList<>();
        for (Object p : parts) {
            if (p instanceof Insn i) insns.add(i);
            else insns.addAll(Arrays.asList((Insn[]) p));
        }
        return new Program("test", insns);
    }

    /** {@code mov r0..r9, 0}: every register initialised, ahead of the instruction under test. */
    static Insn[] initAll() {
        Insn[] out = new Insn[10];
        for (int r = 0; r < 10; r++) out[r] = mov(r, 0);
        return out;
    }

    static ValidatedProgram accepted(Program p) { return accepted(p, OPTIONS, ValidatorFeatures.DEFAULT); }

    static ValidatedProgram accepted(Program p, LoadOptions o, ValidatorFeatures f) {
        return Validator.analyze(p, o, f);
    }

    static void rejected(Program p, int pc, String... fragments) { rejected(p, OPTIONS, ValidatorFeatures.DEFAULT, pc, fragments); }

    static void rejected(Program p, LoadOptions o, ValidatorFeatures f, int pc, String... fragments) {
        assertThatThrownBy(() -> Validator.analyze(p, o, f))
                .isInstanceOfSatisfying(VerifierException.class, e -> {
                    assertThat(e.program()).isEqualTo(p.name());
                    assertThat(e.pc()).as("pc of: %s", e.getMessage()).isEqualTo(pc);
                    assertThat(e.reason()).contains(fragments);
                    assertThat(e.getMessage()).contains(": " + pc + ": ");
                });
    }
}
