package dev.bpf4j.unwind.cfi;

import dev.bpf4j.elf.ElfFile;
import dev.bpf4j.elf.ElfKind;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One module's CFI looked up from four threads at once, with more FDEs than the row cache holds
 * (libjvm.so: the cache is cleared while others read it): every answer equals a fresh
 * single-threaded module's.
 */
class CfiConcurrencyTest {
    @Test
    void concurrentLookupsWhileTheCacheTurnsOverAgreeWithASerialOne() throws Exception {
        Path libjvm = Path.of(System.getProperty("java.home"), "lib", "server", "libjvm.so");
        ElfFile elf = ElfFile.parse(Files.readAllBytes(libjvm), ElfKind.NATIVE_X86_64);
        ModuleCfi shared = ModuleCfi.of("libjvm.so", elf), serial = ModuleCfi.of("libjvm.so", elf);
        List<Fde> fdes = shared.ehFrame().fdes();
        assertThat(fdes.size()).isGreaterThan(ModuleCfi.MAX_CACHED_FDES);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<List<long[]>>> jobs = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                long seed = t;
                jobs.add(pool.submit(() -> {
                    Random r = new Random(seed);
                    List<long[]> asked = new ArrayList<>();
                    for (int i = 0; i < 3000; i++) {
                        Fde f = fdes.get(r.nextInt(fdes.size()));
                        long pc = f.pcBegin() + (f.pcRange() > 0 ? r.nextLong(f.pcRange()) : 0);
                        CfiRow row = shared.rowFor(pc).orElse(null);
                        asked.add(new long[] {pc, row == null ? -1 : row.pc(), row == null ? 0 : row.hashCode()});
                    }
                    return asked;
                }));
            }
            for (Future<List<long[]>> job : jobs) {
                for (long[] a : job.get()) {
                    CfiRow want = serial.rowFor(a[0]).orElse(null);
                    assertThat(a[1]).as("pc 0x%x", a[0]).isEqualTo(want == null ? -1 : want.pc());
                    assertThat(a[2]).as("pc 0x%x", a[0]).isEqualTo(want == null ? 0 : want.hashCode());
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
