package dev.bpf4j.engine;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.asm.ProgramBuilder;
import org.junit.jupiter.api.Test;

import java.util.function.IntPredicate;

import static dev.bpf4j.isa.Opcodes.DW;
import static dev.bpf4j.isa.Opcodes.W;
import static dev.bpf4j.isa.Reg.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * How much of a frame must be zeroed: a frame pointer that only becomes a forward helper's argument
 * ({@code r2 = r10; r2 += -4; call}) lets the helper read no deeper than -4, every other use of r10
 * as a value makes the whole frame readable. The engines' agreement on what such programs read is
 * checked by it-tests ({@code FrameZeroingDifferentialTest}).
 */
class StackUseTest {
    static final int LOOKUP = 1, OTHER = 99;
    static final IntPredicate FORWARD = id -> id == LOOKUP;

    static int zero(ProgramBuilder b) {
        Insn[] insns = b.build("p").insns().toArray(new Insn[0]);
        return StackUse.bytesToZero(insns, 0, insns.length, FORWARD);
    }

    /** key at [r10 - 4], r2 = r10 + delta, r1 = a constant, call {@code helper}. */
    static ProgramBuilder key(int delta, int helper) {
        return new ProgramBuilder().st(W, R10, -4, 2).mov64(R2, R10).add64(R2, delta).lddw(R1, 0x1000).call(helper);
    }

    @Test
    void aKeyPassedToAForwardHelperNeedsOnlyItsOwnDepth() {
        assertThat(zero(key(-4, LOOKUP).mov64(R0, 0).exit())).isEqualTo(8);
        assertThat(zero(key(-100, LOOKUP).mov64(R0, 0).exit())).isEqualTo(104);
        assertThat(zero(new ProgramBuilder().mov64(R3, R10).add64(R3, -64).add64(R3, 8).call(LOOKUP).exit())).isEqualTo(56);
        // no step: the pointer is r10 itself (the helper's check refuses it); nothing below r10
        assertThat(zero(new ProgramBuilder().mov64(R2, R10).call(LOOKUP).exit())).isZero();
        // the deepest of two arguments and of the r10-relative loads
        assertThat(zero(key(-4, LOOKUP).mov64(R2, R10).add64(R2, -24).mov64(R3, R10).add64(R3, -16).call(LOOKUP)
                .ldxdw(R0, R10, -40).exit())).isEqualTo(40);
        // the old entry point, and a helper that does not promise it: the whole frame
        Insn[] insns = key(-4, LOOKUP).exit().build("p").insns().toArray(new Insn[0]);
        assertThat(StackUse.bytesToZero(insns, 0, insns.length)).isEqualTo(512);
        assertThat(zero(key(-4, OTHER).exit())).isEqualTo(512);
    }

    @Test
    void anyOtherUseOfTheFramePointerMakesTheWholeFrameReadable() {
        // read through it, stored, copied, stepped by a register, written, not an argument register
        assertThat(zero(new ProgramBuilder().mov64(R2, R10).add64(R2, -8).ldxdw(R0, R2, 0).call(LOOKUP).exit())).isEqualTo(512);
        assertThat(zero(new ProgramBuilder().mov64(R2, R10).stxdw(R10, -8, R2).call(LOOKUP).exit())).isEqualTo(512);
        assertThat(zero(new ProgramBuilder().mov64(R2, R10).mov64(R3, R2).call(LOOKUP).exit())).isEqualTo(512);
        assertThat(zero(new ProgramBuilder().mov64(R4, 8).mov64(R2, R10).add64(R2, R4).call(LOOKUP).exit())).isEqualTo(512);
        assertThat(zero(new ProgramBuilder().mov64(R2, R10).mov64(R2, 0).call(LOOKUP).exit())).isEqualTo(512);
        assertThat(zero(new ProgramBuilder().mov64(R6, R10).add64(R6, -8).mov64(R2, R6).call(LOOKUP).exit())).isEqualTo(512);
        assertThat(zero(new ProgramBuilder().mov32(R2, R10).call(LOOKUP).exit())).isEqualTo(512);
        assertThat(zero(new ProgramBuilder().mov64(R2, R10).stx(DW, R2, -8, R1).call(LOOKUP).exit())).isEqualTo(512);
        // never reaches a call, or reaches a bpf-to-bpf call
        assertThat(zero(new ProgramBuilder().mov64(R2, R10).add64(R2, -8).mov64(R0, 0).exit())).isEqualTo(512);
        assertThat(zero(new ProgramBuilder().mov64(R1, R10).add64(R1, -8).callLocal("f").exit()
                .label("f").mov64(R0, 0).exit())).isEqualTo(512);
    }

    @Test
    void aJumpBetweenTheMoveAndTheCallMakesTheWholeFrameReadable() {
        // a branch between them, or a jump into the slots between them from elsewhere
        assertThat(zero(new ProgramBuilder().mov64(R2, R10).add64(R2, -8).jeq(R1, 0, "c").label("c").call(LOOKUP).exit()))
                .isEqualTo(512);
        assertThat(zero(new ProgramBuilder().mov64(R2, 0).jeq(R1, 0, "in").mov64(R2, R10).label("in").add64(R2, -8)
                .call(LOOKUP).exit())).isEqualTo(512);
    }
}
