package dev.bpf4j.elf;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** x86-64 shared objects as the dynamic loader maps them: program headers and .dynsym. */
class NativeElfTest {
    private static byte[] libc() throws IOException {
        for (String p : new String[] {"/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6"}) {
            if (Files.exists(Path.of(p))) return Files.readAllBytes(Path.of(p));
        }
        throw new AssertionError("no libc.so.6");
    }

    @Test
    void readsLibcProgramHeadersAndDynamicSymbols() throws IOException {
        ElfFile elf = ElfFile.parse(libc(), ElfKind.NATIVE_X86_64);
        assertThat(elf.type()).isEqualTo(ElfFile.ET_DYN);
        assertThat(elf.machine()).isEqualTo(ElfFile.EM_X86_64);
        assertThat(elf.programHeaders()).anySatisfy(ph -> {
            assertThat(ph.isLoad()).isTrue();
            assertThat(ph.isExecutable()).isTrue();
        });
        assertThat(elf.dynamicSymbols()).anySatisfy(s -> {
            assertThat(s.name()).isEqualTo("getpid");
            assertThat(s.type()).isEqualTo(ElfSymbol.STT_FUNC);
            assertThat(s.isUndefined()).isFalse();
        });
        assertThat(elf.section(".dynsym")).hasValueSatisfying(s -> assertThat(s.type()).isEqualTo(ElfSection.SHT_DYNSYM));
    }

    @Test
    void eachKindRefusesTheOther() throws IOException {
        byte[] libc = libc();
        assertThatThrownBy(() -> ElfFile.parse(libc)).isInstanceOf(ElfFormatException.class)
                .hasMessage("load ELF header: machine 62 is not EM_BPF (247): not a BPF object");
        byte[] bpf = ElfFileTest.fixture("subprog");
        assertThatThrownBy(() -> ElfFile.parse(bpf, ElfKind.NATIVE_X86_64)).isInstanceOf(ElfFormatException.class)
                .hasMessage("load ELF header: machine 247 is not EM_X86_64 (62)");
        // A BPF object has no program headers and no .dynsym.
        ElfFile obj = ElfFile.parse(bpf);
        assertThat(obj.programHeaders()).isEmpty();
        assertThat(obj.dynamicSymbols()).isEmpty();
    }

    @Test
    void truncatedProgramHeadersAreRejected() throws IOException {
        byte[] libc = libc().clone();
        // e_phoff (offset 32) far past the end of the file.
        java.nio.ByteBuffer.wrap(libc).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(32, libc.length - 8L);
        assertThatThrownBy(() -> ElfFile.parse(libc, ElfKind.NATIVE_X86_64)).isInstanceOf(ElfFormatException.class)
                .hasMessageStartingWith("load ELF header: program header table");
    }
}
