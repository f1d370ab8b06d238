package dev.bpf4j.elf;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ByteViewTest {
    private final ByteView v = ByteView.of(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, (byte) 0xff, 'a', 'b', 0, 'c'}, "test");

    @Test
    void readsLittleEndian() {
        assertThat(v.u16(0)).isEqualTo(0x0201);
        assertThat(v.u32(0)).isEqualTo(0x04030201L);
        assertThat(v.u64(0)).isEqualTo(0x0807060504030201L);
        assertThat(v.u32(5)).isEqualTo(0xff080706L);
        assertThat(v.cString(9, "name")).isEqualTo("ab");
    }

    @Test
    void rejectsOutOfRangeReadsWithoutOverflow() {
        assertThatThrownBy(() -> v.u64(6)).isInstanceOf(ElfFormatException.class).hasMessageContaining("outside test of 13 bytes");
        assertThatThrownBy(() -> v.u8(-1)).isInstanceOf(ElfFormatException.class);
        assertThatThrownBy(() -> v.slice(Long.MAX_VALUE, 2, "x")).isInstanceOf(ElfFormatException.class);
        assertThatThrownBy(() -> v.bytes(4, Long.MAX_VALUE)).isInstanceOf(ElfFormatException.class);
        assertThat(v.contains(13, 0)).isTrue();
        assertThat(v.contains(13, 1)).isFalse();
    }

    @Test
    void unterminatedStringIsAnError() {
        assertThatThrownBy(() -> v.cString(12, "name")).hasMessageContaining("not NUL-terminated");
        assertThatThrownBy(() -> v.cString(13, "name")).hasMessageContaining("outside the string table");
    }

    @Test
    void sliceIsBounded() {
        ByteView s = v.slice(9, 3, "names");
        assertThat(s.cString(0, "n")).isEqualTo("ab");
        assertThatThrownBy(() -> s.u8(3)).hasMessageContaining("names");
    }
}
