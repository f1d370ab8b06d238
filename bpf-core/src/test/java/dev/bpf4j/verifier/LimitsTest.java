package dev.bpf4j.verifier;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static dev.bpf4j.verifier.V.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Program length limits, unknown helpers and the validate() entry point. */
class LimitsTest {
    @Test
    void emptyProgram() {
        rejected(new Program("empty", List.of()), 0, "empty program");
    }

    @Test
    void unknownHelper() {
        rejected(prog(mov(1, 0), callHelper(99), EXIT), 1, "unknown helper id 99", "LoadOptions.helpers()");
        rejected(prog(callHelper(HELPER_ID), EXIT), dev.bpf4j.runtime.LoadOptions.defaults(), ValidatorFeatures.DEFAULT, 0,
                "unknown helper id 1");
    }

    @Test
    void largestProgramIsAcceptedAndOneMoreSlotIsNot() {
        List<Insn> insns = new ArrayList<>(Collections.nCopies(Validator.MAX_SLOTS - 1, mov(0, 0)));
        insns.add(EXIT);
        assertThat(accepted(new Program("big", insns)).subprogramStarts()).containsExactly(0);
        insns.add(0, mov(0, 0));
        rejected(new Program("big", insns), Validator.MAX_SLOTS, "program too large: 1000001 slots, the limit is 1000000");
    }

    @Test
    void validateThrowsTheSameException() {
        Program p = new Program("named", List.of(mov(0, 0), new Insn(0xff, 0, 0, 0, 0), EXIT));
        assertThatThrownBy(() -> Validator.validate(p, OPTIONS))
                .isInstanceOf(VerifierException.class)
                .hasMessage("program 'named' rejected: 1: unknown opcode 0xff");
    }

    @Test
    void branchesWaitingToBeExploredAreLimitedAsInLinux() {
        // r2 = a number; then n times "if r2 == i goto next": each pushes its taken branch before the
        // fall-through path ends. Linux 6.18 refuses 8193 of them with these words, at the 8193rd jump
        List<Insn> insns = new ArrayList<>();
        insns.add(mov(0, 0));
        for (int i = 0; i < 8193; i++) insns.add(jeq(2, i, 0));
        insns.add(EXIT);
        dev.bpf4j.runtime.LoadOptions twoArgs = OPTIONS.withEntryArgs(2);
        rejected(new Program("jumps", insns), twoArgs, ValidatorFeatures.DEFAULT, 8193, "The sequence of 8193 jumps is too complex.");
        List<Insn> fewer = new ArrayList<>(insns.subList(0, 101));
        fewer.add(EXIT);
        accepted(new Program("jumps", fewer), twoArgs, ValidatorFeatures.DEFAULT);
    }
}
