package dev.bpf4j.conformance;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DataFileTest {
    /** The public suites' files carry both: -- raw is the program, -- asm its listing (even one that would not assemble). */
    @Test
    void withAsmAndRawTheRawSectionIsTheProgram() {
        DataFile f = DataFile.parse("both.data", String.join("\n",
                "-- asm",
                "mov32 %r0, 1",
                "not an instruction of any assembler",
                "-- raw",
                "0x00000001000000b4",
                "0x0000000000000095",
                "-- result",
                "0x1"));
        assertThat(f.skipped()).isFalse();
        assertThat(f.asm()).isEmpty();
        assertThat(f.raw()).hasValueSatisfying(w -> assertThat(w).containsExactly(0x00000001000000b4L, 0x95L));
        DataFile rawFirst = DataFile.parse("both.data", "-- raw\n0x95\n-- asm\nexit\n-- result\n0");
        assertThat(rawFirst.asm()).isEmpty();
        assertThat(rawFirst.raw()).hasValueSatisfying(w -> assertThat(w).containsExactly(0x95L));
    }

    @Test
    void parsesAsmMemAndHexResult() {
        DataFile f = DataFile.parse("t.data", String.join("\n",
                "# Copyright header",
                "-- asm",
                "mov r0, 1",
                "# comment inside",
                "exit",
                "-- mem",
                "00 01 ff",
                "  0a  # trailing comment",
                "-- result",
                "0x1",
                "-- no register offset",
                "anything"));
        assertThat(f.skipped()).isFalse();
        assertThat(f.asm()).isPresent();
        String[] asmLines = f.asm().get().split("\n", -1);
        assertThat(asmLines[2]).isEqualTo("mov r0, 1"); // index 2 = file line 3
        assertThat(asmLines[4]).isEqualTo("exit");
        assertThat(f.mem()).hasValueSatisfying(m -> assertThat(m).containsExactly(0, 1, 0xff, 0x0a));
        assertThat(f.result()).hasValue(1);
        assertThat(f.expectsError()).isFalse();
    }

    @Test
    void parsesRawWordsDecimalAndNegativeResults() {
        DataFile f = DataFile.parse("r.data", "-- raw\n0x00000001000000b7\n0000000000000095 # exit\n-- result\n-1\n");
        assertThat(f.raw()).hasValueSatisfying(w -> assertThat(w).containsExactly(0x00000001000000b7L, 0x95L));
        assertThat(f.rawBytes().get()).startsWith((byte) 0xb7, (byte) 0, (byte) 0, (byte) 0, (byte) 1);
        assertThat(f.result()).hasValue(-1L);
        assertThat(DataFile.parse("d", "-- raw\n95\n-- result\n18446744073709551615").result()).hasValue(-1L);
        assertThat(DataFile.parse("d", "-- raw\n95\n-- result\n42").result()).hasValue(42L);
    }

    @Test
    void parsesExpectedErrorAndIgnoresCSection() {
        DataFile f = DataFile.parse("e.data", "-- c\nint x--;\n-- asm\nexit\n-- error\nout of bounds\n");
        assertThat(f.expectsError()).isTrue();
        assertThat(f.error()).hasValue("out of bounds");
        assertThat(f.result()).isEmpty();
    }

    @Test
    void unknownSectionMakesTheFileSkipped() {
        DataFile f = DataFile.parse("m.data", "-- map\narray_map 2 4 4 10\n-- asm\nexit\n-- result\n1\n");
        assertThat(f.skipped()).isTrue();
        assertThat(f.skipReason().get()).contains("-- map").contains("line 1");
    }

    @Test
    void errorsNameFileAndLine() {
        assertThatThrownBy(() -> DataFile.parse("bad.data", "-- raw\n0x95\nzz\n-- result\n0"))
                .isInstanceOf(DataFileException.class)
                .hasMessageContaining("bad.data:3").hasMessageContaining("zz");
        assertThatThrownBy(() -> DataFile.parse("bad.data", "-- asm\nexit\n-- mem\n00 1g\n-- result\n0"))
                .hasMessageContaining("bad.data:4").hasMessageContaining("1g");
        assertThatThrownBy(() -> DataFile.parse("bad.data", "-- asm\nexit\n-- result\n0x\n"))
                .hasMessageContaining("bad.data:4").hasMessageContaining("bad result");
        assertThatThrownBy(() -> DataFile.parse("bad.data", "-- asm\nexit\n-- result\n1\n2\n"))
                .hasMessageContaining("exactly one number");
        assertThatThrownBy(() -> DataFile.parse("bad.data", "-- asm\nexit\n-- asm\nexit\n-- result\n1"))
                .hasMessageContaining("bad.data:3").hasMessageContaining("twice");
        assertThatThrownBy(() -> DataFile.parse("bad.data", "mov r0, 1\n-- asm\nexit\n-- result\n1"))
                .hasMessageContaining("bad.data:1").hasMessageContaining("before the first section");
    }

    @Test
    void requiresOneProgramAndOneExpectation() {
        assertThatThrownBy(() -> DataFile.parse("x", "-- result\n1")).hasMessageContaining("no program");
        assertThatThrownBy(() -> DataFile.parse("x", "-- asm\nexit\n")).hasMessageContaining("no expectation");
        assertThatThrownBy(() -> DataFile.parse("x", "-- asm\nexit\n-- result\n1\n-- error\noops"))
                .hasMessageContaining("both '-- result' and '-- error'");
        assertThatThrownBy(() -> DataFile.parse("x", "-- asm\nexit\n-- result\n0x1ffffffffffffffff"))
                .hasMessageContaining("64 bits");
    }
}
