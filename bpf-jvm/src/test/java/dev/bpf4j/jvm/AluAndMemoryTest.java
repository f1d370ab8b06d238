package dev.bpf4j.jvm;

import dev.bpf4j.asm.Assembler;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.LoadOptions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** ALU, ALU64, jumps, loads and stores of every width: the same outcome on all three engines. */
class AluAndMemoryTest {
    private static Program asm(String text) { return Assembler.assembleProgram("t", text); }

    @Test void signedDivisionAndModuloEdgeCases() {
        Trio.Outcome o = Trio.agree(asm("""
                mov %r0, 0
                mov %r3, -7
                mov %r4, 2
                sdiv %r3, %r4
                add %r0, %r3
                mov %r5, -9
                smod %r5, 4
                add %r0, %r5
                lddw %r6, 0x8000000000000000
                sdiv %r6, -1
                add %r0, %r6
                lddw %r7, 0x8000000000000000
                smod %r7, -1
                add %r0, %r7
                mov %r7, 5
                div %r7, 0
                add %r0, %r7
                mov %r8, 5
                mod %r8, 0
                add %r0, %r8
                mov32 %r9, -8
                sdiv32 %r9, 3
                add %r0, %r9
                mov32 %r9, -8
                smod32 %r9, 0
                add %r0, %r9
                mov32 %r9, -8
                arsh32 %r9, 1
                add %r0, %r9
                exit
                """), null);
        assertThat(o.r0()).isNotNull();
    }

    @Test void movsxBswapAndEndianness() {
        Trio.Outcome o = Trio.agree(asm("""
                mov %r0, 0
                lddw %r2, 0x123456789abcff80
                movsx864 %r3, %r2
                add %r0, %r3
                movsx1664 %r4, %r2
                add %r0, %r4
                movsx3264 %r4, %r2
                add %r0, %r4
                movsx832 %r5, %r2
                add %r0, %r5
                movsx1632 %r5, %r2
                add %r0, %r5
                mov %r6, 0x12345678
                be16 %r6
                xor %r0, %r6
                mov %r6, 0x12345678
                be32 %r6
                xor %r0, %r6
                be64 %r6
                xor %r0, %r6
                le16 %r6
                add %r0, %r6
                lddw %r7, 0x0102030405060708
                bswap64 %r7
                xor %r0, %r7
                bswap32 %r7
                add %r0, %r7
                bswap16 %r7
                add %r0, %r7
                exit
                """), null);
        assertThat(o.r0()).isNotNull();
    }

    @Test void loadsAndStoresOfEveryWidthIncludingSignExtending() {
        byte[] mem = new byte[32];
        for (int i = 0; i < mem.length; i++) mem[i] = (byte) (0x81 + i * 7);
        Trio.Outcome o = Trio.agree(asm("""
                mov %r0, 0
                ldxb %r3, [%r1+0]
                add %r0, %r3
                ldxh %r3, [%r1+2]
                add %r0, %r3
                ldxw %r3, [%r1+4]
                add %r0, %r3
                ldxdw %r3, [%r1+8]
                add %r0, %r3
                ldxsb %r3, [%r1+1]
                add %r0, %r3
                ldxsh %r3, [%r1+2]
                add %r0, %r3
                ldxsw %r3, [%r1+4]
                add %r0, %r3
                stxb [%r1+16], %r0
                stxh [%r1+18], %r0
                stxw [%r1+20], %r0
                stxdw [%r1+24], %r0
                stxdw [%r10-8], %r0
                stw [%r10-16], -3
                ldxdw %r4, [%r10-16]
                xor %r0, %r4
                ldxdw %r4, [%r10-8]
                xor %r0, %r4
                stb [%r1+0], 0x7f
                sth [%r1+2], -2
                stdw [%r1+8], -5
                exit
                """), mem);
        assertThat(o.r0()).isNotNull();
        assertThat(o.mem()).isNotEqualTo(mem);
    }

    @Test void outOfBoundsReadAndWriteNameThePc() {
        Trio.Outcome read = Trio.agree(asm("""
                mov %r0, 0
                ldxw %r3, [%r1+14]
                exit
                """), new byte[16]);
        assertThat(read.error()).isEqualTo("OUT_OF_BOUNDS pc 1 at +14");
        Trio.Outcome write = Trio.agree(asm("""
                mov %r0, 0
                stb [%r1+3], 1
                stxdw [%r1+12], %r0
                exit
                """), new byte[16]);
        assertThat(write.error()).isEqualTo("OUT_OF_BOUNDS pc 2 at +12");
        assertThat(write.mem()[3]).isEqualTo((byte) 1);
    }

    @Test void jumpsBothWidthsAndLoops() {
        Trio.Outcome o = Trio.agree(asm("""
                mov %r0, 0
                mov %r3, 100
                mov32 %r4, -1
            loop:
                add %r0, %r3
                jslt32 %r4, 0, neg
                add %r0, 1000
            neg:
                jgt %r3, 50, skip
                xor %r0, 0x55
            skip:
                jne32 %r3, 7, next
                mul %r0, 3
            next:
                sub %r3, 1
                jne %r3, 0, loop
                exit
                """), null);
        assertThat(o.r0()).isNotNull();
    }

    @Test void budgetExceededAtTheBackEdge() {
        Trio.Outcome o = Trio.agree(asm("""
                mov %r0, 0
            top:
                add %r0, 1
                jlt %r0, 1000, top
                exit
                """), null, LoadOptions.defaults().withEntryArgs(2), true, 100);
        assertThat(o.error()).isEqualTo("BUDGET_EXCEEDED pc 2");
    }

    /**
     * The operations emitted as plain JVM instructions (PlainOps): shift counts past the width (masked as
     * every engine masks them), 32-bit results zero-extended, and every jump condition, 64- and 32-bit,
     * register and immediate, on operands where signed and unsigned order and the upper halves differ.
     * r0 hashes every outcome (times 31 at each step, so that none is shifted out).
     */
    @Test void plainOpsAgreeOnEdgeOperands() {
        StringBuilder t = new StringBuilder("mov %r0, 0\n");
        String[] shifts = {"lsh", "rsh", "arsh"};
        long[] counts = {0, 31, 32, 33, 63, 64, 65, -1};
        for (String op : shifts) {
            for (long c : counts) {
                for (String w : new String[] {"", "32"}) {
                    t.append("lddw %r1, 0x80000001fffffff3\nlddw %r2, ").append(c).append('\n')
                            .append(op).append(w).append(" %r1, %r2\nxor %r0, %r1\nmul %r0, 31\n");
                }
            }
        }
        t.append("""
                lddw %r1, 0xfffffffe00000005
                mov32 %r2, %r1
                add %r0, %r2
                add32 %r1, -7
                add %r0, %r1
                lddw %r1, 0x7fffffffffffffff
                mul32 %r1, %r1
                add %r0, %r1
                neg32 %r1
                add %r0, %r1
                neg %r1
                add %r0, %r1
                """);
        String[] conds = {"jeq", "jne", "jset", "jgt", "jge", "jlt", "jle", "jsgt", "jsge", "jslt", "jsle"};
        long[][] pairs = {{-1, 1}, {1, -1}, {0x100000001L, 1}, {0x1_ffffffffL, -1}, {0x80000000L, 0x7fffffffL}, {5, 5}, {Long.MIN_VALUE, 0}};
        int k = 0;
        for (String c : conds) {
            for (String w : new String[] {"", "32"}) {
                for (long[] ab : pairs) {
                    k++;
                    t.append("lddw %r1, ").append(ab[0]).append("\nlddw %r2, ").append(ab[1]).append("\nmul %r0, 31\n")
                            .append(c).append(w).append(" %r1, %r2, y").append(k).append("\nja n").append(k).append("\ny").append(k).append(":\nadd %r0, 1\n")
                            .append("n").append(k).append(":\nmul %r0, 31\n")
                            .append(c).append(w).append(" %r1, ").append((int) ab[1]).append(", z").append(k).append("\nja m").append(k)
                            .append("\nz").append(k).append(":\nadd %r0, 1\nm").append(k).append(":\n");
                }
            }
        }
        t.append("exit\n");
        Trio.Outcome o = Trio.agree(asm(t.toString()), null, LoadOptions.defaults(), false, 1_000_000);
        assertThat(o.r0()).isNotNull().isNotZero();
    }
}
