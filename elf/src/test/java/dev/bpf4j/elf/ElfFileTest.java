package dev.bpf4j.elf;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Expected values come from {@code llvm-readelf-14 -S -s -r subprog.o} (the BPF fixture the integration tests keep). */
class ElfFileTest {
    private final byte[] subprog = fixture("subprog");

    @Test
    void readsHeaderAndSections() {
        ElfFile elf = ElfFile.parse(subprog);
        assertThat(elf.machine()).isEqualTo(ElfFile.EM_BPF);
        assertThat(elf.type()).isEqualTo(ElfFile.ET_REL);
        assertThat(elf.sections()).hasSize(29);
        ElfSection text = elf.section(2);
        assertThat(text.name()).isEqualTo(".text");
        assertThat(text.type()).isEqualTo(ElfSection.SHT_PROGBITS);
        assertThat(text.offset()).isEqualTo(0x40);
        assertThat(text.size()).isEqualTo(0x60);
        assertThat(text.isExecutable()).isTrue();
        assertThat(elf.section("xdp").orElseThrow().index()).isEqualTo(5);
        ElfSection rel = elf.section(".relxdp").orElseThrow();
        assertThat(rel.type()).isEqualTo(ElfSection.SHT_REL);
        assertThat(rel.info()).isEqualTo(5);
        assertThat(rel.link()).isEqualTo(28);
        assertThat(elf.section("license").map(elf::data)).hasValueSatisfying(d -> assertThat(new String(d)).isEqualTo("GPL\0"));
    }

    @Test
    void readsSymbols() {
        ElfFile elf = ElfFile.parse(subprog);
        assertThat(elf.symbols()).hasSize(21);
        ElfSymbol sock = elf.symbol(18);
        assertThat(sock.name()).isEqualTo("sock_prog");
        assertThat(sock.type()).isEqualTo(ElfSymbol.STT_FUNC);
        assertThat(sock.binding()).isEqualTo(ElfSymbol.STB_GLOBAL);
        assertThat(sock.sectionIndex()).isEqualTo(3);
        assertThat(sock.size()).isEqualTo(24);
        ElfSymbol square = elf.symbol(5);
        assertThat(square.name()).isEqualTo("square");
        assertThat(square.binding()).isEqualTo(ElfSymbol.STB_LOCAL);
        assertThat(square.value()).isEqualTo(0x48);
        assertThat(elf.symbol(2).type()).isEqualTo(ElfSymbol.STT_SECTION);
    }

    @Test
    void readsRelocations() {
        ElfFile elf = ElfFile.parse(subprog);
        assertThat(elf.relocationsFor(3)).containsExactly(new ElfRelocation(8, 2, ElfRelocation.R_BPF_64_32));
        assertThat(elf.relocationsFor(5)).containsExactly(
                new ElfRelocation(0x10, 2, ElfRelocation.R_BPF_64_32),
                new ElfRelocation(0x28, 17, ElfRelocation.R_BPF_64_32));
        assertThat(elf.relocationsFor(2)).isEmpty();
    }

    @Test
    void rejectsNonElfAndWrongClass() {
        assertThatThrownBy(() -> ElfFile.parse(new byte[10])).isInstanceOf(ElfFormatException.class)
                .hasMessageStartingWith("load ELF header: file is 10 bytes");
        byte[] bad = subprog.clone();
        bad[0] = 0;
        assertThatThrownBy(() -> ElfFile.parse(bad)).hasMessage("load ELF header: not an ELF file (bad magic)");
        byte[] be = subprog.clone();
        be[5] = 2;
        assertThatThrownBy(() -> ElfFile.parse(be)).hasMessageContaining("not little-endian");
        byte[] x86 = subprog.clone();
        x86[18] = 62;
        assertThatThrownBy(() -> ElfFile.parse(x86)).hasMessageContaining("machine 62 is not EM_BPF");
    }

    @Test
    void sectionPastEndOfFileIsNamed() {
        byte[] bad = subprog.clone();
        putSectionField(bad, 2, 32, 0x10_0000L);
        assertThatThrownBy(() -> ElfFile.parse(bad)).isInstanceOf(ElfFormatException.class)
                .hasMessageStartingWith("load sections: section 2 '.text' extends past end of file (offset 0x40, size 1048576");
        byte[] overflow = subprog.clone();
        putSectionField(overflow, 2, 24, -8L);
        assertThatThrownBy(() -> ElfFile.parse(overflow)).hasMessageStartingWith("load sections: section 2 '.text' extends past end of file");
    }

    @Test
    void truncatedFileIsRejected() {
        byte[] cut = Arrays.copyOf(subprog, 0x2000);
        assertThatThrownBy(() -> ElfFile.parse(cut)).hasMessageContaining("section header table").hasMessageContaining("past end of file");
    }

    @Test
    void badSymbolAndRelocationIndicesAreRejected() {
        ElfFile elf = ElfFile.parse(subprog);
        ElfSection symtab = elf.symbolTable().orElseThrow();
        byte[] bad = subprog.clone();
        // symbol 18 (sock_prog): st_shndx at +6 points beyond the section table
        ByteBuffer.wrap(bad).order(ByteOrder.LITTLE_ENDIAN).putShort((int) symtab.offset() + 18 * 24 + 6, (short) 200);
        assertThatThrownBy(() -> ElfFile.parse(bad)).hasMessage("load symbols: symbol 18 'sock_prog' refers to section 200, but the file has 29 sections");

        byte[] rel = subprog.clone();
        ElfSection relsocket = elf.section(".relsocket").orElseThrow();
        ByteBuffer.wrap(rel).order(ByteOrder.LITTLE_ENDIAN).putInt((int) relsocket.offset() + 12, 999);
        ElfFile lazily = ElfFile.parse(rel);
        assertThatThrownBy(() -> lazily.relocationsFor(3)).hasMessage("load relocations: section 4 '.relsocket' entry 0 refers to symbol 999, but .symtab has 21 symbols");
        assertThat(lazily.relocationsFor(5)).hasSize(2);
    }

    /** Writes a u64 field of section header {@code index} ({@code field}: 24 = sh_offset, 32 = sh_size). */
    static void putSectionField(byte[] elf, int index, int field, long value) {
        ByteBuffer b = ByteBuffer.wrap(elf).order(ByteOrder.LITTLE_ENDIAN);
        long shoff = b.getLong(40);
        b.putLong((int) (shoff + index * 64L + field), value);
    }

    static byte[] fixture(String name) {
        try {
            return Files.readAllBytes(Path.of("..", "it-tests", "src", "test", "resources", "objects", name + ".o"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
