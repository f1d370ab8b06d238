package dev.bpf4j.verifier;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.LoadOptions;
import org.junit.jupiter.api.Test;

import static dev.bpf4j.verifier.V.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Known instruction families that cannot run here yet, and the features that switch some of them on. */
class UnsupportedInsnTest {
    private static final ValidatorFeatures LEGACY = ValidatorFeatures.DEFAULT.withLegacyPacketLoads(true);

    @Test void kfuncCall() { rejected(prog(new Insn(0x85, 0, 2, 0, 77), EXIT), 0, "kfunc call", "not supported"); }

    /** callx (0x8d, uBPF's call through a register): reads its dst, sets r0 and clobbers r1-r5 as a helper call does. */
    @Test void callx() {
        accepted(prog(mov(1, 0), mov(2, 5), new Insn(0x8d, 2, 0, 0, 0), EXIT));
        accepted(prog(mov(7, 5), new Insn(0x8d, 7, 0, 0, 0), movReg(0, 7), EXIT));
        rejected(prog(new Insn(0x8d, 2, 0, 0, 0), EXIT), 0, "R2 !read_ok");
        rejected(prog(mov(2, 5), new Insn(0x8d, 2, 0, 0, 0), movReg(0, 2), EXIT), 2, "R2 !read_ok");
        rejected(prog(mov(2, 5), new Insn(0x8d, 2, 1, 0, 0), EXIT), 1, "reserved field src=1");
        rejected(prog(mov(2, 5), new Insn(0x8d, 2, 0, 1, 0), EXIT), 1, "reserved field off=1");
        rejected(prog(mov(2, 5), new Insn(0x8d, 2, 0, 0, 5), EXIT), 1, "reserved field imm=5");
        rejected(prog(new Insn(0x8d, 11, 0, 0, 0), EXIT), 0, "invalid register r11");
    }

    @Test void mayGoto() { rejected(prog(mov(0, 0), new Insn(0xe5, 0, 0, 0, 0), EXIT), 1, "may_goto", "not supported"); }

    @Test void legacyAbsoluteLoad() { rejected(prog(new Insn(0x30, 0, 0, 0, 14), EXIT), 0, "legacy packet load LD ABS B (0x30)", "not supported"); }

    @Test void legacyIndirectLoad() { rejected(prog(new Insn(0x48, 0, 1, 0, 2), EXIT), 0, "legacy packet load LD IND H (0x48)", "not supported"); }

    @Test
    void legacyLoadsAcceptedWhenSwitchedOnReadR6AndClobberArguments() {
        LoadOptions o = OPTIONS;
        accepted(prog(movReg(6, 1), mov(7, 0), new Insn(0x20, 0, 0, 0, 12), new Insn(0x50, 0, 7, 0, 0), EXIT), o, LEGACY);
        // r6 (the context) must be set
        rejected(prog(new Insn(0x20, 0, 0, 0, 12), EXIT), o, LEGACY, 0, "R6 !read_ok");
        // like a call, the load clobbers r1-r5
        rejected(prog(movReg(6, 1), new Insn(0x28, 0, 0, 0, 12), movReg(0, 1), EXIT), o, LEGACY, 2, "R1 !read_ok");
        // reserved fields still apply
        rejected(prog(movReg(6, 1), new Insn(0x20, 0, 2, 0, 12), EXIT), o, LEGACY, 1, "reserved field src=2");
        rejected(prog(movReg(6, 1), new Insn(0x40, 3, 1, 0, 12), EXIT), o, LEGACY, 1, "reserved field dst=3");
        rejected(prog(movReg(6, 1), new Insn(0x40, 0, 1, 2, 12), EXIT), o, LEGACY, 1, "reserved field off=2");
    }

    @Test
    void legacyDoubleWordLoadIsUnknownEvenWhenSwitchedOn() {
        rejected(prog(new Insn(0x38, 0, 0, 0, 0), EXIT), OPTIONS, LEGACY, 0, "unknown opcode 0x38");
    }

    @Test
    void featuresComeFromLoadOptions() {
        assertThat(ValidatorFeatures.from(LoadOptions.defaults())).isEqualTo(ValidatorFeatures.DEFAULT.withFuncAddresses(true));
        assertThat(ValidatorFeatures.from(LoadOptions.defaults().withLegacyPacketLoads(true)))
                .isEqualTo(ValidatorFeatures.DEFAULT.withFuncAddresses(true).withLegacyPacketLoads(true));
    }

    @Test
    void legacyLoadsThroughLoadOptions() {
        Program p = prog(movReg(6, 1), new Insn(0x30, 0, 0, 0, 14), EXIT);
        assertThatThrownBy(() -> Validator.validate(p, OPTIONS)).isInstanceOf(VerifierException.class).hasMessageContaining("legacy packet load");
        Validator.validate(p, OPTIONS.withLegacyPacketLoads(true));
    }

    @Test
    void functionAddressesButNoOtherPseudoSourcesThroughLoadOptions() {
        Program func = prog(new Insn(0x18, 1, 4, 0, 3), new Insn(0, 0, 0, 0, 0), mov(0, 0), EXIT, mov(0, 1), EXIT);
        assertThat(Validator.analyze(func, OPTIONS).subprogramStarts()).containsExactly(0, 4);
        for (int src : new int[] {1, 2, 3, 5, 6}) {
            Program other = prog(new Insn(0x18, 1, src, 0, 0), new Insn(0, 0, 0, 0, 0), mov(0, 0), EXIT);
            assertThatThrownBy(() -> Validator.validate(other, OPTIONS)).isInstanceOf(VerifierException.class)
                    .hasMessageContaining("lddw src=" + src).hasMessageContaining("unresolved");
        }
        // the second slot of a function address stays reserved
        Program bad = prog(new Insn(0x18, 1, 4, 0, 3), new Insn(0, 0, 0, 0, 7), mov(0, 0), EXIT, mov(0, 1), EXIT);
        assertThatThrownBy(() -> Validator.validate(bad, OPTIONS)).isInstanceOf(VerifierException.class).hasMessageContaining("function");
    }
}
