package dev.bpf4j.unwind;

import com.kenai.jffi.Library;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ProcessCodeTest {
    @Test
    void aLibraryLoadedLaterIsFoundByRescanningOnAMiss() {
        ProcessCode eager = new ProcessCode(new CodeMap(), ProcMaps::read, 0);
        ProcessCode lazy = new ProcessCode(new CodeMap(), ProcMaps::read, Long.MAX_VALUE);
        eager.refresh();
        lazy.refresh();
        Path so = Gcc.sharedLibrary("unwlate", "int unw_late(int x) { return 3 * x; }\n");
        Library lib = Library.openLibrary(so.toString(), Library.NOW | Library.LOCAL);
        long fn = lib.getSymbolAddress("unw_late");
        assertThat(fn).isNotZero();

        int before = eager.scans();
        Frame f = new Symbolizer(eager, new SyntheticFrames()).symbolize(fn + 2);
        assertThat(f.toString()).isEqualTo("libunwlate.so!unw_late+0x2");
        assertThat(eager.scans()).isEqualTo(before + 1);
        // Now known: no further re-read.
        assertThat(eager.isCode(fn)).isTrue();
        assertThat(eager.scans()).isEqualTo(before + 1);

        // Re-reads are rate-limited: within the interval a miss stays a miss until refresh().
        int lazyScans = lazy.scans();
        assertThat(lazy.isCode(fn)).isFalse();
        assertThat(lazy.isCode(0x1234)).isFalse();
        assertThat(lazy.scans()).isEqualTo(lazyScans);
        lazy.refresh();
        assertThat(lazy.isCode(fn)).isTrue();
    }

    @Test
    void garbageReturnAddressesDoNotMakeItReReadTheMaps() {
        ProcessCode eager = new ProcessCode(new CodeMap(), ProcMaps::read, 0);
        eager.refresh();
        int before = eager.scans();
        assertThat(eager.isCode(0x1234)).isFalse();                    // below mmap_min_addr
        assertThat(eager.isCode(0xffff_8000_0000_1000L)).isFalse();    // kernel space
        assertThat(eager.scans()).isEqualTo(before);
        assertThat(eager.isCode(0x7000_0000_0000L + 0x123_4000)).isFalse(); // unmapped user space: may be new code
        assertThat(eager.scans()).isEqualTo(before + 1);
    }

    @Test
    void executableMappingsAreCodeOthersAreNot() {
        // One reading of the maps for both sides: the JVM commits code-cache pages while the test runs.
        List<ProcMaps.Mapping> maps = ProcMaps.read();
        ProcessCode code = new ProcessCode(new CodeMap(), () -> maps, 0);
        for (ProcMaps.Mapping m : maps) {
            assertThat(code.isCode(m.start())).as(m.toString()).isEqualTo(m.executable());
        }
        long heap = com.kenai.jffi.MemoryIO.getInstance().allocateMemory(16, true);
        try {
            assertThat(code.isCode(heap)).isFalse();
        } finally {
            com.kenai.jffi.MemoryIO.getInstance().freeMemory(heap);
        }
    }

    @Test
    void oneModulePerFileWithLazySymbols() {
        ProcessCode code = new ProcessCode(new CodeMap(), ProcMaps::read, 0);
        code.refresh();
        List<NativeModule> modules = code.modules();
        assertThat(modules).extracting(NativeModule::name).contains("libc.so.6", "libjvm.so").doesNotHaveDuplicates();
        NativeModule libc = modules.stream().filter(m -> m.name().equals("libc.so.6")).findFirst().orElseThrow();
        assertThat(libc.symbols().size()).isGreaterThan(1000);
        assertThat(libc.loadError()).isNull();
    }

    @Test
    void mapsLinesParse() {
        ProcMaps.Mapping m = ProcMaps.read().stream().filter(x -> x.path().endsWith("libc.so.6") && x.executable())
                .findFirst().orElseThrow();
        assertThat(m.fileBacked()).isTrue();
        assertThat(m.inode()).isPositive();
        assertThat(m.offset() % 4096).isZero();
        assertThat(new ProcMaps.Mapping(1, 2, "r-xp", "/x").offset()).isZero();
    }

    @Test
    void aLibraryDeletedAfterLoadingIsStillReadThroughMapFiles() throws Exception {
        Path so = Gcc.sharedLibrary("unwgone", "int unw_gone(int x) { return x + 7; }\n");
        Library lib = Library.openLibrary(so.toString(), Library.NOW | Library.LOCAL);
        long fn = lib.getSymbolAddress("unw_gone");
        java.nio.file.Files.delete(so);
        ProcessCode code = new ProcessCode(new CodeMap(), ProcMaps::read, 0);
        ProcessCode.NativeMapping m = code.nativeMapping(fn).orElseThrow();
        assertThat(m.mapping().deleted()).isTrue();
        assertThat(m.module().path()).isEqualTo(so.toString());
        assertThat(new Symbolizer(code, new SyntheticFrames()).symbolize(fn).toString()).isEqualTo("libunwgone.so!unw_gone");
    }

    @Test
    void aFileThatIsNotElfGivesAModuleWithoutSymbols() throws Exception {
        Path notElf = java.nio.file.Files.createTempFile("bpf4j-unwind-", ".so");
        try {
            java.nio.file.Files.writeString(notElf, "not an ELF file at all, but long enough to hold a header ........");
            NativeModule m = new NativeModule(notElf.toString(), null);
            assertThat(m.symbols().size()).isZero();
            assertThat(m.loadError()).contains("not an ELF file");
            assertThat(m.bias(0x7000_0000_0000L, 0x1000)).isEqualTo(0x7000_0000_0000L - 0x1000);
            NativeModule missing = new NativeModule("/no/such/lib.so (deleted)", null);
            assertThat(missing.name()).isEqualTo("lib.so");
            assertThat(missing.symbols().size()).isZero();
            assertThat(missing.loadError()).startsWith("/no/such/lib.so");
        } finally {
            java.nio.file.Files.delete(notElf);
        }
    }
}
