package dev.bpf4j.interp;

import dev.bpf4j.isa.Insn;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static dev.bpf4j.interp.Asm.*;
import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/** Every ALU / ALU64 operation, register and immediate source, with the RFC 9669 edge cases. */
class AluTest {
    static final long MIN = Long.MIN_VALUE;

    /** r0 = a; r1 = b; r0 = r0 OP r1 (opcode with X source, given offset); exit. */
    static long runX(int opcode, int off, long a, long b) {
        return Runner.run(prog(lddw(0, a), lddw(1, b), new Insn(opcode | X, 0, 1, off, 0), exit()));
    }

    /** r0 = a; r0 = r0 OP imm; exit. */
    static long runK(int opcode, int off, long a, int imm) {
        return Runner.run(prog(lddw(0, a), new Insn(opcode | K, 0, 0, off, imm), exit()));
    }

    static Stream<Arguments> registerSource() {
        return Stream.of(
                arguments("add64 wraps", ALU64 | ADD, 0, -1L, 2L, 1L),
                arguments("sub64", ALU64 | SUB, 0, 1L, 2L, -1L),
                arguments("mul64 wraps", ALU64 | MUL, 0, 0x1_0000_0000L, 0x1_0000_0000L, 0L),
                arguments("mul64 signed operands", ALU64 | MUL, 0, 7L, -3L, -21L),
                arguments("div64 unsigned", ALU64 | DIV, 0, -1L, 2L, 0x7fff_ffff_ffff_ffffL),
                arguments("div64 by zero", ALU64 | DIV, 0, 10L, 0L, 0L),
                arguments("sdiv64 truncates", ALU64 | DIV, 1, -7L, 2L, -3L),
                arguments("sdiv64 LLONG_MIN/-1", ALU64 | DIV, 1, MIN, -1L, MIN),
                arguments("sdiv64 by zero", ALU64 | DIV, 1, -7L, 0L, 0L),
                arguments("mod64 unsigned", ALU64 | MOD, 0, -1L, 10L, 5L),
                arguments("mod64 by zero keeps dst", ALU64 | MOD, 0, 7L, 0L, 7L),
                arguments("smod64 sign of dividend", ALU64 | MOD, 1, -7L, 2L, -1L),
                arguments("smod64 negative divisor", ALU64 | MOD, 1, 7L, -2L, 1L),
                arguments("smod64 LLONG_MIN%-1", ALU64 | MOD, 1, MIN, -1L, 0L),
                arguments("smod64 by zero keeps dst", ALU64 | MOD, 1, -7L, 0L, -7L),
                arguments("or64", ALU64 | OR, 0, 0xf0L, 0x0fL, 0xffL),
                arguments("and64", ALU64 | AND, 0, 0xf0f0L, 0x0ff0L, 0x00f0L),
                arguments("xor64", ALU64 | XOR, 0, 0xffL, 0x0fL, 0xf0L),
                arguments("lsh64 masked", ALU64 | LSH, 0, 1L, 65L, 2L),
                arguments("lsh64 to sign", ALU64 | LSH, 0, 1L, 63L, MIN),
                arguments("rsh64 logical", ALU64 | RSH, 0, MIN, 63L, 1L),
                arguments("rsh64 by 64 is by 0", ALU64 | RSH, 0, 12345L, 64L, 12345L),
                arguments("arsh64", ALU64 | ARSH, 0, MIN, 63L, -1L),
                arguments("mov64", ALU64 | MOV, 0, 1L, 0x1234_5678_9abc_def0L, 0x1234_5678_9abc_def0L),
                arguments("movsx64 8", ALU64 | MOV, 8, 0L, 0x1280L, -128L),
                arguments("movsx64 8 positive", ALU64 | MOV, 8, 0L, 0x7fL, 127L),
                arguments("movsx64 16", ALU64 | MOV, 16, 0L, 0x1_8000L, -32768L),
                arguments("movsx64 32", ALU64 | MOV, 32, 0L, 0x1_8000_0000L, -2147483648L),
                arguments("add32 wraps, zero-extends", ALU | ADD, 0, 0xffff_ffffL, 1L, 0L),
                arguments("add32 ignores upper bits", ALU | ADD, 0, 0x1_0000_0005L, 0x1_0000_0003L, 8L),
                arguments("sub32 zero-extends", ALU | SUB, 0, 0L, 1L, 0xffff_ffffL),
                arguments("mul32", ALU | MUL, 0, 0x10000L, 0x10000L, 0L),
                arguments("div32 unsigned", ALU | DIV, 0, 0xffff_ffffL, 2L, 0x7fff_ffffL),
                arguments("div32 by low-zero src", ALU | DIV, 0, 10L, 0x1_0000_0000L, 0L),
                arguments("sdiv32", ALU | DIV, 1, -7L, 2L, 0xffff_fffdL),
                arguments("sdiv32 INT_MIN/-1", ALU | DIV, 1, 0x8000_0000L, -1L, 0x8000_0000L),
                arguments("sdiv32 by zero", ALU | DIV, 1, 5L, 0L, 0L),
                arguments("mod32", ALU | MOD, 0, 0xffff_ffffL, 10L, 5L),
                arguments("mod32 by zero zero-extends dst", ALU | MOD, 0, 0xffff_ffff_0000_0007L, 0L, 7L),
                arguments("smod32", ALU | MOD, 1, -7L, 2L, 0xffff_ffffL),
                arguments("smod32 INT_MIN%-1", ALU | MOD, 1, 0x8000_0000L, -1L, 0L),
                arguments("smod32 by zero zero-extends dst", ALU | MOD, 1, -7L, 0L, 0xffff_fff9L),
                arguments("or32", ALU | OR, 0, 0xffff_0000_0000_00f0L, 0x0fL, 0xffL),
                arguments("and32", ALU | AND, 0, -1L, -1L, 0xffff_ffffL),
                arguments("xor32", ALU | XOR, 0, 0xff00_0000_0000_00ffL, 0x0fL, 0xf0L),
                arguments("lsh32 masked", ALU | LSH, 0, 1L, 33L, 2L),
                arguments("lsh32 drops high bits", ALU | LSH, 0, 0x8000_0001L, 1L, 2L),
                arguments("rsh32 logical on low half", ALU | RSH, 0, 0xffff_ffff_8000_0000L, 4L, 0x0800_0000L),
                arguments("arsh32 sign of bit 31", ALU | ARSH, 0, 0x8000_0000L, 31L, 0xffff_ffffL),
                arguments("mov32 zero-extends", ALU | MOV, 0, 0L, 0xffff_ffff_1234_5678L, 0x1234_5678L),
                arguments("movsx32 8", ALU | MOV, 8, 0L, 0x80L, 0xffff_ff80L),
                arguments("movsx32 16", ALU | MOV, 16, 0L, 0x8000L, 0xffff_8000L));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("registerSource")
    void registerSourceOperations(String name, int opcode, int off, long a, long b, long expected) {
        assertThat(runX(opcode, off, a, b)).as(name).isEqualTo(expected);
    }

    static Stream<Arguments> immediateSource() {
        return Stream.of(
                arguments("add64 imm sign-extended", ALU64 | ADD, 0, 5L, -1, 4L),
                arguments("sub64 imm", ALU64 | SUB, 0, 5L, 7, -2L),
                arguments("mul64 imm", ALU64 | MUL, 0, 5L, -2, -10L),
                arguments("div64 imm is sign-extended then unsigned", ALU64 | DIV, 0, -1L, -1, 1L),
                arguments("div64 small by huge unsigned imm", ALU64 | DIV, 0, 10L, -1, 0L),
                arguments("div64 imm zero", ALU64 | DIV, 0, 10L, 0, 0L),
                arguments("sdiv64 imm", ALU64 | DIV, 1, -7L, 2, -3L),
                arguments("sdiv64 LLONG_MIN/-1 imm", ALU64 | DIV, 1, MIN, -1, MIN),
                arguments("mod64 imm zero keeps dst", ALU64 | MOD, 0, 9L, 0, 9L),
                arguments("smod64 imm", ALU64 | MOD, 1, -7L, 2, -1L),
                arguments("or64 imm sign-extended", ALU64 | OR, 0, 0L, -1, -1L),
                arguments("and64 imm", ALU64 | AND, 0, 0x1_0000_00ffL, 0x0f, 0x0fL),
                arguments("xor64 imm", ALU64 | XOR, 0, 0L, -2, -2L),
                arguments("lsh64 imm", ALU64 | LSH, 0, 3L, 4, 48L),
                arguments("rsh64 imm", ALU64 | RSH, 0, -1L, 60, 15L),
                arguments("arsh64 imm", ALU64 | ARSH, 0, -16L, 2, -4L),
                arguments("neg64", ALU64 | NEG, 0, 5L, 0, -5L),
                arguments("neg64 LLONG_MIN", ALU64 | NEG, 0, MIN, 0, MIN),
                arguments("mov64 imm sign-extended", ALU64 | MOV, 0, 7L, -1, -1L),
                arguments("add32 imm", ALU | ADD, 0, 0xffff_ffffL, 2, 1L),
                arguments("div32 imm unsigned 32-bit", ALU | DIV, 0, 0xffff_ffffL, -1, 1L),
                arguments("div32 imm zero", ALU | DIV, 0, 0xffff_ffffL, 0, 0L),
                arguments("sdiv32 imm", ALU | DIV, 1, 0xffff_fff9L, 2, 0xffff_fffdL),
                arguments("mod32 imm zero zero-extends", ALU | MOD, 0, -1L, 0, 0xffff_ffffL),
                arguments("smod32 imm", ALU | MOD, 1, 0xffff_fff9L, -2, 0xffff_ffffL),
                arguments("and32 imm", ALU | AND, 0, -1L, -1, 0xffff_ffffL),
                arguments("lsh32 imm", ALU | LSH, 0, 1L, 31, 0x8000_0000L),
                arguments("rsh32 imm", ALU | RSH, 0, -1L, 28, 0xfL),
                arguments("arsh32 imm", ALU | ARSH, 0, 0x8000_0000L, 4, 0xf800_0000L),
                arguments("neg32", ALU | NEG, 0, 5L, 0, 0xffff_fffbL),
                arguments("neg32 ignores upper bits", ALU | NEG, 0, 0x7_0000_0001L, 0, 0xffff_ffffL),
                arguments("mov32 imm", ALU | MOV, 0, 7L, -1, 0xffff_ffffL),
                arguments("le16", ALU | END | TO_LE, 0, 0x1122_3344_5566_7788L, 16, 0x7788L),
                arguments("le32", ALU | END | TO_LE, 0, 0x1122_3344_5566_7788L, 32, 0x5566_7788L),
                arguments("le64", ALU | END | TO_LE, 0, 0x1122_3344_5566_7788L, 64, 0x1122_3344_5566_7788L),
                arguments("be16", ALU | END | TO_BE, 0, 0x1122_3344_5566_7788L, 16, 0x8877L),
                arguments("be32", ALU | END | TO_BE, 0, 0x1122_3344_5566_7788L, 32, 0x8877_6655L),
                arguments("be64", ALU | END | TO_BE, 0, 0x1122_3344_5566_7788L, 64, 0x8877_6655_4433_2211L),
                arguments("bswap16", ALU64 | END, 0, 0x1122_3344_5566_7788L, 16, 0x8877L),
                arguments("bswap32", ALU64 | END, 0, 0x1122_3344_5566_7788L, 32, 0x8877_6655L),
                arguments("bswap64", ALU64 | END, 0, 0x1122_3344_5566_7788L, 64, 0x8877_6655_4433_2211L));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("immediateSource")
    void immediateSourceOperations(String name, int opcode, int off, long a, int imm, long expected) {
        assertThat(runK(opcode, off, a, imm)).as(name).isEqualTo(expected);
    }
}
