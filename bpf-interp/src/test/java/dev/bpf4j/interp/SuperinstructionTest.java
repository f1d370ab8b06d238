package dev.bpf4j.interp;

import dev.bpf4j.isa.AluOps;

import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.LoadOptions;
import org.junit.jupiter.api.Test;

import java.util.function.LongBinaryOperator;

import static dev.bpf4j.interp.Asm.*;
import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code mov} + ALU pairs are fused into one dispatch (Superinstructions): every fused form must
 * compute what the two instructions compute alone, a jump into the second slot must still run it
 * alone, and pairs that are not 3-address operations must stay apart.
 */
class SuperinstructionTest {
    static final long A = 0x8123_4567_89ab_cdefL, B = 0x0000_0000_0000_0007L;

    /** r3 = A (slots 0-1), r4 = B (slot 2), then the pair {@code r2 = r3; second} at slots 3-4; r0 = r2. */
    static Program pair(Object second) {
        return prog(lddw(3, A), mov(4, (int) B), movr(2, 3), second, movr(0, 2), exit());
    }

    /** The decoded opcode of slot 3, the pair's first slot. */
    static int pairOpcode(Program p) { return InsnCode.opcode(Decoder.decode(p, LoadOptions.defaults()).code[3]); }

    static void check64(int op, LongBinaryOperator f, int fused, int fusedX) {
        Program k = pair(alu64i(op, 2, (int) B));
        assertThat(pairOpcode(k)).as("fused opcode of mov + 0x%x K", op).isEqualTo(fused);
        assertThat(Runner.run(k)).as("mov + 0x%x K", op).isEqualTo(f.applyAsLong(A, B));
        if (fusedX < 0) return;
        Program x = pair(alu64(op, 2, 4));
        assertThat(pairOpcode(x)).as("fused opcode of mov + 0x%x X", op).isEqualTo(fusedX);
        assertThat(Runner.run(x)).as("mov + 0x%x X", op).isEqualTo(f.applyAsLong(A, B));
    }

    @Test
    void every64BitFormComputesWhatThePairComputes() {
        check64(ADD, AluOps::add64, InsnCode.MOV_ADD_K, InsnCode.MOV_ADD_X);
        check64(SUB, AluOps::sub64, InsnCode.MOV_SUB_K, InsnCode.MOV_SUB_X);
        check64(MUL, AluOps::mul64, InsnCode.MOV_MUL_K, InsnCode.MOV_MUL_X);
        check64(OR, AluOps::or64, InsnCode.MOV_OR_K, InsnCode.MOV_OR_X);
        check64(AND, AluOps::and64, InsnCode.MOV_AND_K, InsnCode.MOV_AND_X);
        check64(LSH, AluOps::lsh64, InsnCode.MOV_LSH_K, InsnCode.MOV_LSH_X);
        check64(RSH, AluOps::rsh64, InsnCode.MOV_RSH_K, InsnCode.MOV_RSH_X);
        check64(XOR, AluOps::xor64, InsnCode.MOV_XOR_K, InsnCode.MOV_XOR_X);
        check64(ARSH, AluOps::arsh64, InsnCode.MOV_ARSH_K, -1);
        check64(DIV, AluOps::div64, InsnCode.MOV_DIV_K, InsnCode.MOV_DIV_X);
        check64(MOD, AluOps::mod64, InsnCode.MOV_MOD_K, InsnCode.MOV_MOD_X);
    }

    @Test
    void divisionAndModuloByZeroKeepTheirRules() {
        Program div = prog(lddw(3, A), mov(4, 0), movr(2, 3), alu64(DIV, 2, 4), movr(0, 2), exit());
        Program mod = prog(lddw(3, A), mov(4, 0), movr(2, 3), alu64(MOD, 2, 4), movr(0, 2), exit());
        assertThat(pairOpcode(div)).isEqualTo(InsnCode.MOV_DIV_X);
        assertThat(Runner.run(div)).isZero();
        assertThat(Runner.run(mod)).isEqualTo(A);
    }

    @Test
    void the32BitFormsZeroExtend() {
        Object[][] cases = {
            {alu32i(AND, 2, 0xff00ff), InsnCode.MOV32_AND_K, AluOps.and32(A, 0xff00ff)},
            {alu32i(ADD, 2, 0x7fffffff), InsnCode.MOV32_ADD_K, AluOps.add32(A, 0x7fffffff)},
            {alu32i(LSH, 2, 36), InsnCode.MOV32_LSH_K, AluOps.lsh32(A, 36)},
            {alu32i(RSH, 2, 3), InsnCode.MOV32_RSH_K, AluOps.rsh32(A, 3)},
        };
        for (Object[] c : cases) {
            Program p = prog(lddw(3, A), mov(4, (int) B), alu32(MOV, 2, 3), c[0], movr(0, 2), exit());
            assertThat(pairOpcode(p)).isEqualTo((int) c[1]);
            assertThat(Runner.run(p)).isEqualTo((long) c[2]);
        }
    }

    @Test
    void pairsThatAreNotThreeAddressStayApart() {
        // r2 = r3; r2 += r2 reads the moved value twice
        Program self = pair(alu64(ADD, 2, 2));
        assertThat(pairOpcode(self)).isEqualTo(ALU64 | MOV | X);
        assertThat(Runner.run(self)).isEqualTo(A + A);
        // a different destination, and a signed division
        assertThat(pairOpcode(pair(alu64i(ADD, 5, 1)))).isEqualTo(ALU64 | MOV | X);
        Program sdiv = prog(lddw(3, A), mov(4, (int) B), movr(2, 3), new dev.bpf4j.isa.Insn(ALU64 | DIV | K, 2, 0, 1, 7),
                movr(0, 2), exit());
        assertThat(pairOpcode(sdiv)).isEqualTo(ALU64 | MOV | X);
        assertThat(Runner.run(sdiv)).isEqualTo(A / 7);
    }

    @Test
    void aJumpIntoTheSecondSlotRunsItAlone() {
        // r2 = 100; if r1 == 0 goto L; r2 = r3 (fused with L); L: r2 += 7; r0 = r2; exit
        Program p = prog(mov(3, 1000), mov(2, 100), jmpi(JEQ, 1, 0, 1), movr(2, 3), alu64i(ADD, 2, 7), movr(0, 2), exit());
        assertThat(InsnCode.opcode(Decoder.decode(p, LoadOptions.defaults()).code[3])).isEqualTo(InsnCode.MOV_ADD_K);
        assertThat(Runner.run(p, dev.bpf4j.runtime.RunContext.builder().arg(1, 0).build())).isEqualTo(107);
        assertThat(Runner.run(p, dev.bpf4j.runtime.RunContext.builder().arg(1, 1).build())).isEqualTo(1007);
    }
}
