package dev.bpf4j.kernel;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Scalar precision against Linux: 32-bit bounds, ALU32 zero extension, JMP32 refinement, known bits
 * (tnums) and the bounds they give a stack pointer moved by a scalar. Each program is loaded as a
 * socket filter into Linux and through bpf4j's verifier: same verdict, and where Linux refuses, the
 * same pc. The same programs, with Linux's words, are unit tests in bpf-core (ScalarPrecisionTest).
 */
class ScalarPrecisionKernelTest {
    @BeforeEach void needsBpf() { KernelAssumptions.assumeBpf(); }

    static final Map<String, String> PROGRAMS = new LinkedHashMap<>();
    static {
        PROGRAMS.put("clang's update loop: u32 counter spilled, add32, jlt32", """
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
        PROGRAMS.put("jgt32 bounds a u32 load", """
                ldxw r1, [r1+0]
                jgt32 r1, 7, out
                lsh r1, 3
                mov r2, r10
                add r2, -64
                add r2, r1
                stdw [r2+0], 1
                out:
                mov r0, 0
                exit""");
        PROGRAMS.put("jgt32 leaves a 64-bit value's upper half unknown", """
                ldxw r1, [r1+0]
                lsh r1, 29
                jgt32 r1, 7, out
                lsh r1, 3
                mov r2, r10
                add r2, -64
                add r2, r1
                stdw [r2+0], 1
                out:
                mov r0, 0
                exit""");
        PROGRAMS.put("jsgt32 and jslt32 give s32, then u32 and 64-bit bounds", """
                ldxw r1, [r1+0]
                jsgt32 r1, 7, out
                jslt32 r1, 0, out
                lsh r1, 3
                mov r2, r10
                add r2, -64
                add r2, r1
                stdw [r2+0], 1
                out:
                mov r0, 0
                exit""");
        PROGRAMS.put("and with 0x38: a multiple of 8 up to 56", """
                ldxw r1, [r1+0]
                and r1, 0x38
                mov r2, r10
                add r2, -64
                add r2, r1
                stdw [r2+0], 1
                mov r0, 0
                exit""");
        PROGRAMS.put("and with 0x48 reaches past the frame", """
                ldxw r1, [r1+0]
                and r1, 0x48
                mov r2, r10
                add r2, -64
                add r2, r1
                stdw [r2+0], 1
                mov r0, 0
                exit""");
        PROGRAMS.put("add32 wraps: zero-extended, not 2^32", """
                ldxw r1, [r1+0]
                and r1, 7
                add32 r1, -1
                jgt r1, 6, out
                lsh r1, 3
                mov r2, r10
                add r2, -64
                add r2, r1
                stdw [r2+0], 1
                out:
                mov r0, 0
                exit""");
        PROGRAMS.put("mov32 keeps only the low half", """
                stdw [r10-8], 1
                mov r1, r10
                ldxdw r1, [r1-8]
                mov32 r1, r1
                rsh r1, 29
                lsh r1, 3
                mov r2, r10
                add r2, -64
                add r2, r1
                stdw [r2+0], 1
                mov r0, 0
                exit""");
        PROGRAMS.put("or sets known bits: a constant compare is decided", """
                ldxw r1, [r1+0]
                or r1, 1
                mov r0, 0
                jne r1, 0, out
                ldxdw r0, [r10-600]
                out:
                exit""");
        PROGRAMS.put("jset with one bit: the bit is known in the branch taken", """
                ldxw r1, [r1+0]
                and r1, 3
                jset r1, 2, out
                lsh r1, 4
                mov r2, r10
                add r2, -32
                add r2, r1
                stdw [r2+0], 1
                out:
                mov r0, 0
                exit""");
    }

    @Test void socketFiltersGetLinuxsVerdict() { KernelOracle.sameSocketFilterVerdicts(PROGRAMS); }
}
