package dev.bpf4j.asm;

import dev.bpf4j.isa.Samples;
import dev.bpf4j.isa.InsnSet;
import dev.bpf4j.isa.InsnEncoding;
import dev.bpf4j.isa.Insn;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** asm → bytes → asm and bytes → asm → bytes, for every form and for random slots. */
class RoundTripTest {
    @Test
    void everyFormSurvivesPrintAndReassemble() {
        List<Insn> code = Samples.everyForm(42, 8);
        String text = AsmPrinter.print(code);
        assertThat(text).doesNotContain(".byte");
        assertThat(Assembler.assemble(text)).isEqualTo(code);
    }

    @Test
    void randomSlotsSurviveThanksToRawLines() {
        Random r = new Random(7);
        for (int round = 0; round < 200; round++) {
            byte[] b = new byte[8 * 16];
            r.nextBytes(b);
            // Bias towards valid opcodes so that both paths are exercised.
            for (int i = 0; i < b.length; i += 8) {
                if (r.nextBoolean()) {
                    List<InsnEncoding> forms = InsnSet.encodings();
                    b[i] = (byte) forms.get(r.nextInt(forms.size())).opcode();
                }
            }
            List<Insn> code = List.of(Insn.decodeAll(b));
            assertThat(Assembler.assemble(AsmPrinter.print(code))).isEqualTo(code);
        }
    }

    @Test
    void conformanceTextComesBackAsWritten() {
        String text = """
                mov %r0, 1
                mov32 %r1, -5
                lddw %r2, 0x123456789abcdef0
                ldxw %r3, [%r1+4]
                ldxsb %r3, [%r1-1]
                stxdw [%r10-8], %r1
                sth [%r10-2], 4660
                movsx864 %r4, %r1
                sdiv32 %r4, %r2
                bswap64 %r4
                be16 %r4
                lock fetch add [%r10-8], %r1
                lock cmpxchg32 [%r10-8], %r2
                jsge32 %r1, -1, +2
                ja32 -3
                call local +1
                call 12
                callx %r5
                exit
                """;
        assertThat(AsmPrinter.print(Assembler.assemble(text))).isEqualTo(text);
    }

    @Test
    void invalidSlotsPrintAsCommentedBytes() {
        Insn[] code = {new Insn(0xff, 1, 1, 0, 5), new Insn(0x3f, 0, 1, 7, 0), new Insn(0x07, 1, 3, 0, 1), new Insn(0x18, 0, 0, 0, 1)};
        List<String> lines = AsmPrinter.lines(code);
        assertThat(lines.get(0)).isEqualTo(".byte 0xff, 0x11, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00 # invalid opcode 0xff");
        assertThat(lines.get(1)).contains("invalid fields for opcode 0x3f");
        // add with a non-zero src on the immediate form: reserved field, kept by a raw line.
        assertThat(lines.get(2)).isEqualTo(".byte 0x07, 0x31, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00 # invalid fields for opcode 0x07 (dst=1 src=3 off=0 imm=1)");
        assertThat(lines.get(3)).contains("lddw without its second slot");
        assertThat(Assembler.assemble(String.join("\n", lines))).containsExactly(code);
    }

    @Test
    void builderOutputDisassemblesAndReassembles() {
        List<Insn> code = new ArrayList<>(Samples.everyForm(3, 1));
        String llvm = Disassembler.disassemble(code);
        assertThat(llvm).doesNotContain(".byte");
        assertThat(Assembler.assemble(AsmPrinter.print(code))).isEqualTo(code);
    }
}
