package dev.bpf4j.asm;

import dev.bpf4j.isa.Insn;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class DisassemblerTest {
    private static String llvm(String conformanceAsm) {
        return String.join("|", Disassembler.standard().lines(Assembler.assemble(conformanceAsm).toArray(new Insn[0])));
    }

    @Test
    void printsLlvmSyntax() {
        assertThat(llvm("ldxw %r0, [%r1+4]")).isEqualTo("r0 = *(u32 *)(r1 + 4)");
        assertThat(llvm("ldxb %r0, [%r1-4]")).isEqualTo("r0 = *(u8 *)(r1 - 4)");
        assertThat(llvm("ldxsh %r0, [%r1+2]")).isEqualTo("r0 = *(s16 *)(r1 + 2)");
        assertThat(llvm("jeq %r1, 1, +1")).isEqualTo("if r1 == 0x1 goto +1");
        assertThat(llvm("jsgt %r1, -1, -3")).isEqualTo("if r1 s> -0x1 goto -3");
        assertThat(llvm("jlt32 %r1, %r2, +0")).isEqualTo("if w1 < w2 goto +0");
        assertThat(llvm("jset %r1, 4, +1")).isEqualTo("if r1 & 0x4 goto +1");
        assertThat(llvm("add32 %r0, %r1")).isEqualTo("w0 += w1");
        assertThat(llvm("arsh %r0, 2")).isEqualTo("r0 s>>= 0x2");
        assertThat(llvm("mov %r0, %r1")).isEqualTo("r0 = r1");
        assertThat(llvm("neg32 %r3")).isEqualTo("w3 = -w3");
        assertThat(llvm("mod %r0, %r1")).isEqualTo("r0 %= r1");
        assertThat(llvm("sdiv %r0, %r1")).isEqualTo("r0 s/= r1");
        assertThat(llvm("smod32 %r0, 3")).isEqualTo("w0 s%= 0x3");
        assertThat(llvm("movsx832 %r0, %r1")).isEqualTo("w0 = (s8)w1");
        assertThat(llvm("movsx3264 %r0, %r1")).isEqualTo("r0 = (s32)r1");
        assertThat(llvm("be16 %r0")).isEqualTo("r0 = be16 r0");
        assertThat(llvm("bswap64 %r2")).isEqualTo("r2 = bswap64 r2");
        assertThat(llvm("lddw %r0, 0x123")).isEqualTo("r0 = 0x123 ll");
        assertThat(llvm("stw [%r1+2], 5")).isEqualTo("*(u32 *)(r1 + 2) = 0x5");
        assertThat(llvm("stxdw [%r10-8], %r1")).isEqualTo("*(u64 *)(r10 - 8) = r1");
        assertThat(llvm("ja -1")).isEqualTo("goto -1");
        assertThat(llvm("ja32 +70000")).isEqualTo("gotol +70000");
        assertThat(llvm("call 5")).isEqualTo("call 5");
        assertThat(llvm("call local -4")).isEqualTo("call pc-4");
        assertThat(llvm("call %r3")).isEqualTo("callx r3");
        assertThat(llvm("exit")).isEqualTo("exit");
        assertThat(llvm("ldabsh 12")).isEqualTo("r0 = *(u16 *)skb[0xc]");
        assertThat(llvm("ldindb %r3, -6")).isEqualTo("r0 = *(u8 *)skb[r3 - 0x6]");
        assertThat(llvm("lddw %r1, map_by_fd(3)")).isEqualTo("r1 = map_by_fd(3) ll");
        assertThat(llvm("lddw %r1, map_val(map_by_idx(2)) + 16")).isEqualTo("r1 = map_val(map_by_idx(2)) + 16 ll");
    }

    @Test
    void printsAtomicsLikeLlvm() {
        assertThat(llvm("lock add [%r10-8], %r1")).isEqualTo("lock *(u64 *)(r10 - 8) += r1");
        assertThat(llvm("lock xor32 [%r10-8], %r1")).isEqualTo("lock *(u32 *)(r10 - 8) ^= w1");
        assertThat(llvm("lock fetch add [%r1], %r0")).isEqualTo("r0 = atomic_fetch_add((u64 *)(r1 + 0), r0)");
        assertThat(llvm("lock fetch or32 [%r1+8], %r2")).isEqualTo("w2 = atomic_fetch_or((u32 *)(r1 + 8), w2)");
        assertThat(llvm("lock xchg [%r1], %r3")).isEqualTo("r3 = xchg_64(r1 + 0, r3)");
        assertThat(llvm("lock cmpxchg32 [%r1-4], %r3")).isEqualTo("w0 = cmpxchg32_32(r1 - 4, w0, w3)");
    }

    @Test
    void decimalModeMatchesLlvm14() {
        Insn[] code = Assembler.assemble("jeq %r1, -1, +1\nlddw %r1, -1\nmov %r1, 0x80000000").toArray(new Insn[0]);
        assertThat(Disassembler.llvm14().lines(code)).containsExactly("if r1 == -1 goto +1", "r1 = -1 ll", "r1 = -2147483648");
    }

    @Test
    void listingCountsLddwAsTwoSlots() {
        String listing = Disassembler.disassemble(Assembler.assemble("lddw %r0, 1\nexit"));
        assertThat(listing).isEqualTo("    0: r0 = 0x1 ll\n    2: exit\n");
    }

    @Test
    void neverThrowsOnGarbage() {
        Random r = new Random(11);
        for (int round = 0; round < 500; round++) {
            byte[] b = new byte[8 * 8 + r.nextInt(8)];
            r.nextBytes(b);
            String text = Disassembler.disassemble(b);
            assertThat(text).isNotEmpty();
        }
        assertThat(Disassembler.disassemble(new byte[] {(byte) 0xff, 0, 0, 0, 0, 0, 0, 0, 1, 2}))
                .contains(".byte 0xff").contains("# invalid opcode 0xff").contains("2 trailing byte(s)");
        List<String> lone = Disassembler.standard().lines(new Insn[] {new Insn(0x18, 1, 0, 0, 1)});
        assertThat(lone).containsExactly(".byte 0x18, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00 # lddw without its second slot");
    }
}
