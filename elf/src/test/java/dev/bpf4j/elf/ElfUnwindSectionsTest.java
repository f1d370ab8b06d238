package dev.bpf4j.elf;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The unwinder's partial read of a native ELF file gives what the whole file's parse gives. */
class ElfUnwindSectionsTest {
    @Test
    void theSameHeadersAndCfiSectionsAsTheWholeParse() throws Exception {
        Path jvm = Path.of(System.getProperty("java.home"), "lib", "server", "libjvm.so");
        Path libc = Files.readAllLines(Path.of("/proc/self/maps")).stream().map(l -> l.substring(l.lastIndexOf(' ') + 1))
                .filter(p -> p.contains("/libc.so")).findFirst().map(Path::of).orElseThrow();
        for (Path p : new Path[] {jvm, libc}) {
            ElfFile whole = ElfFile.parse(Files.readAllBytes(p), ElfKind.NATIVE_X86_64);
            ElfUnwindSections parts = ElfUnwindSections.read(p);
            assertThat(parts).as("%s", p).isNotNull();
            assertThat(parts.programHeaders()).isEqualTo(whole.programHeaders());
            ElfSection eh = whole.section(".eh_frame").orElseThrow(), hdr = whole.section(".eh_frame_hdr").orElseThrow();
            assertThat(parts.ehFrame()).isEqualTo(whole.data(eh));
            assertThat(parts.ehFrameAddr()).isEqualTo(eh.addr());
            assertThat(parts.ehFrameHdr()).isEqualTo(whole.data(hdr));
            assertThat(parts.ehFrameHdrAddr()).isEqualTo(hdr.addr());
        }
    }

    @Test
    void anythingUnusualIsLeftToTheWholeParse(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path text = Files.writeString(dir.resolve("not-elf.so"), "just text, long enough to hold an ELF header's 64 bytes .......");
        assertThat(ElfUnwindSections.read(text)).isNull();
        byte[] jvm = Files.readAllBytes(Path.of(System.getProperty("java.home"), "lib", "server", "libjvm.so"));
        Path cut = Files.write(dir.resolve("cut.so"), java.util.Arrays.copyOf(jvm, jvm.length / 2));   // section headers gone
        assertThat(ElfUnwindSections.read(cut)).isNull();
    }
}
