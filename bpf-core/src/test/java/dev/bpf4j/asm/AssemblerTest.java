package dev.bpf4j.asm;

import dev.bpf4j.isa.Insn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bpf4j.runtime.BpfLoadException;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class AssemblerTest {
    private static String hex(String asm) { return HexFormat.of().formatHex(Assembler.assembleBytes(asm)); }

    @Test
    void encodesConformanceSyntax() {
        assertThat(hex("mov %r0, 1")).isEqualTo("b700000001000000");
        assertThat(hex("mov32 %r0, -1")).isEqualTo("b4000000ffffffff");
        assertThat(hex("add %r0, %r1")).isEqualTo("0f10000000000000");
        assertThat(hex("arsh32 %r2, 3")).isEqualTo("c402000003000000");
        assertThat(hex("neg %r3")).isEqualTo("8703000000000000");
        assertThat(hex("sdiv %r0, %r1")).isEqualTo("3f10010000000000");
        assertThat(hex("smod32 %r0, 3")).isEqualTo("9400010003000000");
        assertThat(hex("movsx1632 %r0, %r1")).isEqualTo("bc10100000000000");
        assertThat(hex("movsx3264 %r0, %r1")).isEqualTo("bf10200000000000");
        assertThat(hex("be16 %r0")).isEqualTo("dc00000010000000");
        assertThat(hex("le64 %r0")).isEqualTo("d400000040000000");
        assertThat(hex("bswap32 %r1")).isEqualTo("d701000020000000");
        assertThat(hex("swap32 %r1")).isEqualTo("d701000020000000");
        assertThat(hex("ldxw %r0, [%r1+4]")).isEqualTo("6110040000000000");
        assertThat(hex("ldxdw %r0, [%r1]")).isEqualTo("7910000000000000");
        assertThat(hex("ldxsh %r0, [%r1-2]")).isEqualTo("8910feff00000000");
        assertThat(hex("ldxhsx %r0, [%r1-2]")).isEqualTo("8910feff00000000");
        assertThat(hex("stb [%r1+2], 0x7f")).isEqualTo("720102007f000000");
        assertThat(hex("stdw [%r10-8], 0x88776655")).isEqualTo("7a0af8ff55667788");
        assertThat(hex("stxdw [%r10-8], %r1")).isEqualTo("7b1af8ff00000000");
        assertThat(hex("lddw %r0, 0x123456789abcdef0")).isEqualTo("18000000f0debc9a0000000078563412");
        assertThat(hex("lddw %r0, -1")).isEqualTo("18000000ffffffff00000000ffffffff");
        assertThat(hex("ja +1")).isEqualTo("0500010000000000");
        assertThat(hex("ja32 -2")).isEqualTo("06000000feffffff");
        assertThat(hex("jeq %r1, 0, +1")).isEqualTo("1501010000000000");
        assertThat(hex("jsle32 %r1, %r2, -1")).isEqualTo("de21ffff00000000");
        assertThat(hex("jset %r1, 0x8, +3")).isEqualTo("4501030008000000");
        assertThat(hex("call 5")).isEqualTo("8500000005000000");
        assertThat(hex("call helper 5")).isEqualTo("8500000005000000");
        assertThat(hex("call runtime 7")).isEqualTo("8520000007000000");
        assertThat(hex("call %r2")).isEqualTo("8d02000000000000");
        assertThat(hex("exit")).isEqualTo("9500000000000000");
    }

    @Test
    void encodesAtomics() {
        assertThat(hex("lock add [%r10-8], %r1")).isEqualTo("db1af8ff00000000");
        assertThat(hex("lock fetch add [%r10-8], %r1")).isEqualTo("db1af8ff01000000");
        assertThat(hex("lock or32 [%r1+4], %r2")).isEqualTo("c321040040000000");
        assertThat(hex("lock fetch and32 [%r1], %r2")).isEqualTo("c321000051000000");
        assertThat(hex("lock fetch xor [%r1], %r2")).isEqualTo("db210000a1000000");
        assertThat(hex("lock xchg32 [%r10-8], %r1")).isEqualTo("c31af8ffe1000000");
        assertThat(hex("lock cmpxchg [%r10-8], %r1")).isEqualTo("db1af8fff1000000");
    }

    @Test
    void resolvesLabelsCommentsAndTheImplicitExitLabel() {
        String text = """
                # a comment line

                mov %r0, 0   # trailing comment
                loop:
                add %r0, 1
                jlt %r0, 10, loop
                jne %r0, 10, exit
                call local func
                ja done
                func:
                mov %r0, 7
                exit
                done: exit
                """;
        List<Insn> code = Assembler.assemble(text);
        assertThat(code).hasSize(9);
        assertThat(code.get(2).off()).isEqualTo(-2);      // jlt back to loop
        assertThat(code.get(3).off()).isEqualTo(3);       // jne to the first exit (pc 7)
        assertThat(code.get(4).src()).isEqualTo(1);
        assertThat(code.get(4).imm()).isEqualTo(1);       // call local func (pc 6)
        assertThat(code.get(5).off()).isEqualTo(2);       // ja done (pc 8)
    }

    @Test
    void acceptsUbpfSemicolonsAndSpacedOperands() {
        assertThat(Assembler.assemble("mov %r0, 1;\nldxh %r0, [ %r1 + 0x10 ];\nexit;"))
                .isEqualTo(Assembler.assemble("mov %r0, 1\nldxh %r0, [%r1+16]\nexit"));
    }

    @Test
    void anExplicitExitLabelWins() {
        List<Insn> code = Assembler.assemble("ja exit\nexit\nexit:\nexit\n");
        assertThat(code.get(0).off()).isEqualTo(1);
    }

    @Test
    void lddwCountsTwoSlotsForLabels() {
        List<Insn> code = Assembler.assemble("ja end\nlddw %r0, 5\nend:\nexit");
        assertThat(code.get(0).off()).isEqualTo(2);
    }

    @Test
    void rawByteLinesAndPseudoLddw() {
        assertThat(hex(".byte 0xff, 0x11, 0, 0, 5, 0, 0, 0")).isEqualTo("ff11000005000000");
        assertThat(hex("ld_pseudo %r1, 1, 0x5")).isEqualTo("18110000050000000000000000000000");
    }

    @Test
    void pseudoLddwSourcesAndNamedHelpersAndMaps() {
        AsmSymbols syms = AsmSymbols.of(java.util.Map.of("bpf_map_lookup_elem", 1), java.util.Map.of("array_map", 3));
        List<Insn> code = Assembler.assemble("""
                mov r2, 1
                lddw r1, map_by_fd(array_map)
                lddw r1, map_val(map_by_fd(4)) + 8
                lddw r1, var_addr(9)
                lddw r1, code_addr(2)
                lddw r1, map_by_idx(array_map)
                lddw r1, map_val(map_by_idx(0)) - 4
                stxw [r10-4], r2
                call bpf_map_lookup_elem
                exit
                """, syms);
        assertThat(code.get(1)).isEqualTo(new Insn(0x18, 1, 1, 0, 3));
        assertThat(code.get(3)).isEqualTo(new Insn(0x18, 1, 2, 0, 4));
        assertThat(code.get(4).imm()).isEqualTo(8);
        assertThat(code.get(5)).isEqualTo(new Insn(0x18, 1, 3, 0, 9));
        assertThat(code.get(7)).isEqualTo(new Insn(0x18, 1, 4, 0, 2));
        assertThat(code.get(9)).isEqualTo(new Insn(0x18, 1, 5, 0, 3));
        assertThat(code.get(11)).isEqualTo(new Insn(0x18, 1, 6, 0, 0));
        assertThat(code.get(12).imm()).isEqualTo(-4);
        assertThat(code.get(14)).isEqualTo(new Insn(0x85, 0, 0, 0, 1));
        assertThat(AsmPrinter.lines(code.toArray(new Insn[0])).subList(1, 7)).containsExactly(
                "lddw %r1, map_by_fd(3)", "lddw %r1, map_val(map_by_fd(4)) + 8", "lddw %r1, var_addr(9)",
                "lddw %r1, code_addr(2)", "lddw %r1, map_by_idx(3)", "lddw %r1, map_val(map_by_idx(0)) - 4");
        assertError("call bpf_nope", 1, "unknown helper 'bpf_nope'", "call bpf_nope");
        assertError("lddw %r1, map_by_fd(nomap)", 1, "unknown map 'nomap'", "lddw");
    }

    @Test
    void errorsNameLineAndText() {
        assertError("mov %r0, 1\nfrob %r1, 2\n", 2, "unknown mnemonic 'frob'", "frob %r1, 2");
        assertError("\n\nmov %r0\n", 3, "'mov' takes 2 operands, got 1", "mov %r0");
        assertError("mov %r16, 1", 1, "no such register '%r16'", "mov %r16");
        assertError("mov %r0, 0x100000000", 1, "32-bit immediate out of range", "0x100000000");
        assertError("mov %r0, 12abc", 1, "expected a number", "12abc");
        assertError("ldxw %r0, %r1", 1, "expected a memory operand", "ldxw");
        assertError("ldxw %r0, [%r1+70000]", 1, "16-bit offset out of range", "70000");
        assertError("mov %r0, 1\nja nowhere\nexit", 2, "undefined label 'nowhere'", "ja nowhere");
        assertError("a:\nexit\na:\nexit", 3, "duplicate label 'a'", "a:");
        assertError("lock nand [%r1], %r2", 1, "unknown mnemonic 'lock nand'", "lock nand");
        assertError(".byte 1, 2, 3", 1, ".byte takes exactly 8 values", ".byte");
        StringBuilder far = new StringBuilder("ja far\n");
        for (int i = 0; i < 40000; i++) far.append("mov %r0, 0\n");
        far.append("far:\nexit\n");
        assertError(far.toString(), 1, "beyond the 16-bit offset range", "ja far");
    }

    @Test
    void programErrorsNameTheProgram() {
        assertThatThrownBy(() -> Assembler.assembleProgram("demo", "mov %r0, 0\nexit %r1\n"))
                .isInstanceOf(AssemblerException.class)
                .hasMessage("program 'demo': line 2: 'exit' takes 0 operands, got 1: 'exit %r1'");
        assertThat(Assembler.assembleProgram("ok", "exit").name()).isEqualTo("ok");
    }

    @Test
    void longJumpsUseGotol() {
        StringBuilder far = new StringBuilder("ja32 far\n");
        for (int i = 0; i < 40000; i++) far.append("mov %r0, 0\n");
        far.append("far:\nexit\n");
        assertThat(Assembler.assemble(far.toString()).get(0).imm()).isEqualTo(40000);
    }

    @Test
    void garbageGivesOnlyAssemblerExceptions() {
        String[] vocab = {"mov", "lddw", "ldxw", "lock", "fetch", "call", "local", "ja", "jeq32", "exit", "%r1", "r10",
            "%r99", "[%r1+4]", "[%r1", "[]", "+", "-3", "0x", "0xffffffffffffffffff", "label:", ",", "#", "map_by_fd(",
            "map_val(map_by_fd(1))", ".byte", "neg", "movsx832", "be16", "stw", ":", "  "};
        java.util.Random r = new java.util.Random(99);
        int ok = 0;
        for (int n = 0; n < 5000; n++) {
            StringBuilder line = new StringBuilder();
            int words = 1 + r.nextInt(5);
            for (int w = 0; w < words; w++) line.append(vocab[r.nextInt(vocab.length)]).append(r.nextBoolean() ? " " : ", ");
            try {
                Assembler.assemble(line.toString());
                ok++;
            } catch (AssemblerException e) {
                assertThat(e.line()).isEqualTo(1);
            }
        }
        assertThat(ok).isLessThan(5000);
    }

    private static void assertError(String text, int line, String reason, String fragment) {
        assertThatThrownBy(() -> Assembler.assemble(text))
                .isInstanceOf(AssemblerException.class)
                .isInstanceOf(BpfLoadException.class)
                .hasMessageStartingWith("line " + line + ": ")
                .hasMessageContaining(reason)
                .hasMessageContaining(fragment)
                .satisfies(e -> assertThat(((AssemblerException) e).line()).isEqualTo(line));
    }
}
