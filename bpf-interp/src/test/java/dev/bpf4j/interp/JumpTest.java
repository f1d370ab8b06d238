package dev.bpf4j.interp;

import dev.bpf4j.isa.Insn;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static dev.bpf4j.interp.Asm.*;
import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/** Every conditional jump of JMP and JMP32 with register and immediate sources, plus ja and gotol. */
class JumpTest {
    /** 1 when "if r1 OP r2 goto" is taken, else 0. */
    static long takenX(int cls, int op, long a, long b) {
        return Runner.run(prog(lddw(1, a), lddw(2, b), mov(0, 0),
                new Insn(cls | op | X, 1, 2, 1, 0), exit(), mov(0, 1), exit()));
    }

    static long takenK(int cls, int op, long a, int imm) {
        return Runner.run(prog(lddw(1, a), mov(0, 0),
                new Insn(cls | op | K, 1, 0, 1, imm), exit(), mov(0, 1), exit()));
    }

    static Stream<Arguments> conditions() {
        long lowFive = 0x1_0000_0005L; // differs from 5 only above bit 31
        return Stream.of(
                // op, a, b, taken as JMP, taken as JMP32
                arguments("jeq", JEQ, 5L, 5L, true, true),
                arguments("jeq high bits", JEQ, lowFive, 5L, false, true),
                arguments("jne", JNE, 5L, 6L, true, true),
                arguments("jne high bits", JNE, lowFive, 5L, true, false),
                arguments("jset", JSET, 6L, 3L, true, true),
                arguments("jset none", JSET, 4L, 3L, false, false),
                arguments("jset high bits", JSET, 0x1_0000_0000L, 0x1_0000_0000L, true, false),
                arguments("jgt unsigned", JGT, -1L, 1L, true, true),
                arguments("jgt equal", JGT, 5L, 5L, false, false),
                arguments("jge equal", JGE, 5L, 5L, true, true),
                arguments("jge less", JGE, 4L, 5L, false, false),
                arguments("jlt unsigned", JLT, 1L, -1L, true, true),
                arguments("jlt high bits", JLT, 1L, 0x1_0000_0000L, true, false),
                arguments("jle equal", JLE, 7L, 7L, true, true),
                arguments("jle greater", JLE, 8L, 7L, false, false),
                arguments("jsgt signed", JSGT, -1L, 1L, false, false),
                arguments("jsgt positive", JSGT, 1L, -1L, true, true),
                arguments("jsgt bit 31", JSGT, 0x8000_0000L, 1L, true, false),
                arguments("jsge equal", JSGE, -3L, -3L, true, true),
                arguments("jsge less", JSGE, -4L, -3L, false, false),
                arguments("jslt signed", JSLT, -1L, 1L, true, true),
                arguments("jslt bit 31", JSLT, 0x8000_0000L, 1L, false, true),
                arguments("jsle equal", JSLE, -3L, -3L, true, true),
                arguments("jsle greater", JSLE, 2L, -3L, false, false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("conditions")
    void registerSource(String name, int op, long a, long b, boolean jmp, boolean jmp32) {
        assertThat(takenX(JMP, op, a, b)).as("JMP " + name).isEqualTo(jmp ? 1 : 0);
        assertThat(takenX(JMP32, op, a, b)).as("JMP32 " + name).isEqualTo(jmp32 ? 1 : 0);
        if (b == (int) b) {
            assertThat(takenK(JMP, op, a, (int) b)).as("JMP K " + name).isEqualTo(jmp ? 1 : 0);
        }
        if ((int) b == b || (b >>> 32) == 0) {
            assertThat(takenK(JMP32, op, a, (int) b)).as("JMP32 K " + name).isEqualTo(jmp32 ? 1 : 0);
        }
    }

    @Test
    void immediateIsSignExtendedForJmpButNotWidenedForJmp32() {
        assertThat(takenK(JMP, JEQ, -1L, -1)).isEqualTo(1);
        assertThat(takenK(JMP, JEQ, 0xffff_ffffL, -1)).isEqualTo(0);
        assertThat(takenK(JMP32, JEQ, 0xffff_ffffL, -1)).isEqualTo(1);
        assertThat(takenK(JMP, JGT, 0xffff_ffffL, -1)).isEqualTo(0); // imm is 0xffff_ffff_ffff_ffff
        assertThat(takenK(JMP32, JGE, 0xffff_ffffL, -1)).isEqualTo(1);
    }

    @Test
    void jaSkipsForward() {
        assertThat(Runner.run(prog(mov(0, 1), ja(1), mov(0, 2), exit()))).isEqualTo(1);
        assertThat(Runner.run(prog(mov(0, 1), ja(0), mov(0, 2), exit()))).isEqualTo(2);
    }

    @Test
    void gotolUsesTheImmediateAsOffset() {
        assertThat(Runner.run(prog(gotol(2), mov(0, 1), exit(), mov(0, 2), exit()))).isEqualTo(2);
    }

    @Test
    void gotolBackwardsLoops() {
        // r0 = 0; loop: r0 += 1; if r0 == 5 goto out; gotol loop; out: exit
        assertThat(Runner.run(prog(mov(0, 0), alu64i(ADD, 0, 1), jmpi(JEQ, 0, 5, 1), gotol(-3), exit())))
                .isEqualTo(5);
    }

    @Test
    void loopCountsDown() {
        // r1 = 100; r0 = 0; loop: r0 += r1; r1 -= 1; if r1 != 0 goto loop; exit  => 5050
        assertThat(Runner.run(prog(mov(1, 100), mov(0, 0), alu64(ADD, 0, 1), alu64i(SUB, 1, 1),
                jmpi(JNE, 1, 0, -3), exit()))).isEqualTo(5050);
    }
}
