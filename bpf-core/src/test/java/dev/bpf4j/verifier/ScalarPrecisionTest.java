package dev.bpf4j.verifier;

import dev.bpf4j.asm.Assembler;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.EntryRegisters;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.PacketContext;
import org.junit.jupiter.api.Test;

import static dev.bpf4j.verifier.V.OPTIONS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Scalar precision as Linux's: 32-bit bounds, ALU32 zero extension, JMP32 refinement, known bits
 * (tnums), and what they prove about a stack pointer moved by a scalar. Each verdict was taken from
 * Linux 6.18 (the same programs as socket filters: ScalarPrecisionKernelTest in bpf-kernel compares
 * them live where bpf() runs).
 */
class ScalarPrecisionTest {
    private static final LoadOptions SOCKET_FILTER = OPTIONS.withEntry(EntryRegisters.CONTEXT).withPacketContext(PacketContext.SK_BUFF);

    private static Program asm(String text) { return Assembler.assembleProgram("precision", text); }

    private static void accepted(String text) { Validator.analyze(asm(text), SOCKET_FILTER, ValidatorFeatures.from(SOCKET_FILTER)); }

    private static void rejected(String text, int pc, String reason) {
        assertThatThrownBy(() -> Validator.analyze(asm(text), SOCKET_FILTER, ValidatorFeatures.from(SOCKET_FILTER)))
                .isInstanceOfSatisfying(VerifierException.class, e -> {
                    assertThat(e.pc()).as(e.getMessage()).isEqualTo(pc);
                    assertThat(e.reason()).contains(reason);
                });
    }

    /** r1 <<= 3; *(u64 *)(fp - 64 + r1) = 1: inside the frame only when r1 is proven in [0, 7]. */
    private static final String STORE_AT_R1_TIMES_8 = "lsh r1, 3\nmov r2, r10\nadd r2, -64\nadd r2, r1\nstdw [r2+0], 1\n";

    @Test
    void clangsUpdateLoopCounter() {
        // the shape clang-14 gives `for (u32 i...) bpf_map_update_elem(&m, &i, &v[i], 0)` (objects/corpus/update_loop.c):
        // a u32 spilled and refilled, a 32-bit add, a 32-bit compare; once "math between fp pointer and an unbounded register"
        accepted("""
                mov32 r1, 0
                stxw [r10-72], r1
                loop:
                lsh r1, 3
                mov r3, r10
                add r3, -64
                add r3, r1
                stdw [r3+0], 7
                ldxw r1, [r10-72]
                add32 r1, 1
                stxw [r10-72], r1
                jlt32 r1, 8, loop
                mov r0, 0
                exit""");
    }

    @Test
    void jmp32BoundsTheLowHalf() {
        accepted("ldxw r1, [r1+0]\njgt32 r1, 7, out\n" + STORE_AT_R1_TIMES_8 + "out:\nmov r0, 0\nexit");
        // signed 32-bit bounds give the unsigned ones, then the 64-bit ones (the value is zero-extended)
        accepted("ldxw r1, [r1+0]\njsgt32 r1, 7, out\njslt32 r1, 0, out\n" + STORE_AT_R1_TIMES_8 + "out:\nmov r0, 0\nexit");
        // but not the upper half of a 64-bit value: Linux refuses the access (bpf4j already at the pointer math)
        rejected("ldxw r1, [r1+0]\nlsh r1, 29\njgt32 r1, 7, out\n" + STORE_AT_R1_TIMES_8 + "out:\nmov r0, 0\nexit",
                6, "R2 math between fp pointer and register with unbounded min value is not allowed");
    }

    @Test
    void alu32ResultsAreZeroExtended() {
        // (r1 & 7) - 1 on 32 bits is 0xffffffff for 0, not -1: only [0, 6] reaches the store
        accepted("ldxw r1, [r1+0]\nand r1, 7\nadd32 r1, -1\njgt r1, 6, out\n" + STORE_AT_R1_TIMES_8 + "out:\nmov r0, 0\nexit");
        // mov32 keeps the low half of an unknown 64-bit value: >> 29 leaves [0, 7]
        accepted("stdw [r10-8], 1\nmov r1, r10\nldxdw r1, [r1-8]\nmov32 r1, r1\nrsh r1, 29\n" + STORE_AT_R1_TIMES_8 + "mov r0, 0\nexit");
    }

    @Test
    void knownBitsBoundAndDecide() {
        accepted("ldxw r1, [r1+0]\nand r1, 0x38\nmov r2, r10\nadd r2, -64\nadd r2, r1\nstdw [r2+0], 1\nmov r0, 0\nexit");
        rejected("ldxw r1, [r1+0]\nand r1, 0x48\nmov r2, r10\nadd r2, -64\nadd r2, r1\nstdw [r2+0], 1\nmov r0, 0\nexit",
                5, "invalid variable-offset write to stack R2 var_off=(0x0; 0x48) off=-64 size=8");
        // r1 | 1 is never 0: the branch is decided and the access past the frame never explored, as in Linux
        accepted("ldxw r1, [r1+0]\nor r1, 1\nmov r0, 0\njne r1, 0, out\nldxdw r0, [r10-600]\nout:\nexit");
        // jset with a single bit: bit 1 is known clear where it is not taken, so r1 is 0 or 1
        accepted("ldxw r1, [r1+0]\nand r1, 3\njset r1, 2, out\nlsh r1, 4\nmov r2, r10\nadd r2, -32\nadd r2, r1\nstdw [r2+0], 1\n"
                + "out:\nmov r0, 0\nexit");
    }

    @Test
    void funcAndMapPointersPlusAKnownZero() {
        // clang emits `lddw r2, func; add r2, 0`; Linux allows adding a known 0 (a fuzz case only bpf4j refused)
        accepted("lddw r2, code_addr(4)\nadd r2, 0\nmov r0, 0\nexit\nmov r0, 0\nexit");
        rejected("lddw r2, code_addr(4)\nadd r2, 8\nmov r0, 0\nexit\nmov r0, 0\nexit", 2, "R2 pointer arithmetic on func prohibited");
    }
}
