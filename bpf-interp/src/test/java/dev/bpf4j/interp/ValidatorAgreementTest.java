package dev.bpf4j.interp;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.verifier.Validator;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.bpf4j.interp.Asm.*;
import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every opcode byte with many field combinations: whatever the validator accepts, the interpreter
 * must load, and running it may only end normally or with a {@link BpfRuntimeException} — never an
 * "illegal instruction" or any other exception.
 */
class ValidatorAgreementTest {
    static final HelperRegistry HELPERS = HelperRegistry.builder().add(1, "nop", (c, a, b, d, e, f) -> 0).build();
    static final LoadOptions OPTIONS = LoadOptions.defaults().withHelpers(HELPERS);
    static final int[] REGS = {0, 2, 10};
    static final int[] OFFS = {0, 1, -8, 8, 16, 32};
    static final int[] IMMS = {0, 1, -1, 16, 32, 64, ADD | FETCH, OR, AND | FETCH, XOR, XCHG, CMPXCHG};

    @Test
    void everythingTheValidatorAcceptsLoadsAndRuns() {
        int accepted = 0;
        java.util.Set<Integer> opcodes = new java.util.TreeSet<>();
        List<String> disagreements = new ArrayList<>();
        for (int opcode = 0; opcode < 256; opcode++) {
            for (int dst : REGS) for (int src : REGS) for (int off : OFFS) for (int imm : IMMS) {
                Program p = candidate(new Insn(opcode, dst, src, off, imm));
                try {
                    Validator.validate(p, OPTIONS);
                } catch (BpfLoadException rejected) {
                    continue;
                }
                accepted++;
                opcodes.add(opcode);
                String what = String.format("op 0x%02x dst %d src %d off %d imm %d", opcode, dst, src, off, imm);
                try (Executable e = Runner.ENGINE.load(p, OPTIONS)) {
                    e.run(RunContext.builder().budget(50).build());
                } catch (BpfRuntimeException expected) {
                    // a checked access through an unmapped pointer, the budget, ...: all fine
                } catch (RuntimeException other) {
                    disagreements.add(what + ": " + other);
                }
            }
        }
        assertThat(disagreements).isEmpty();
        assertThat(accepted).as("programs the validator accepted").isGreaterThan(500);
        // RFC 9669 Appendix A has 119 opcode bytes besides legacy packet loads
        assertThat(opcodes).as("opcode bytes exercised").hasSizeGreaterThanOrEqualTo(119);
    }

    /** r0, r2-r9 and [r10-8] initialised, the candidate, then "r0 = 0; exit" (also a jump target). */
    static Program candidate(Insn insn) {
        List<Object> parts = new ArrayList<>();
        parts.add(mov(0, 0));
        for (int r = 2; r <= 9; r++) parts.add(mov(r, 0));
        parts.add(st(DW, 10, -8, 0));
        parts.add(insn);
        if (insn.opcode() == LDDW) parts.add(new Insn(0, 0, 0, 0, 0));
        parts.add(mov(0, 0));
        parts.add(exit());
        return prog(parts.toArray());
    }
}
