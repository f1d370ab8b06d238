package dev.bpf4j.jit;

import dev.bpf4j.jit.runtime.JitExecutable;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.unwind.CodeMap;
import dev.bpf4j.unwind.CodeRegion;
import dev.bpf4j.unwind.ProcMaps;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.jit.I.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Executable memory is W^X, registered while loaded, and fully released on close. */
class LifecycleTest {
    private static final Program SMALL = prog("small", mov64r(0, 1), alu64(ADD, 0, 1), callLocal(1), exit(),
            alu64(MUL, 0, 3), exit());

    @Test
    void codeIsReadExecuteNeverWritable() {
        try (JitExecutable x = Jit.LOADER.load(SMALL, LoadOptions.defaults())) {
            ProcMaps.Mapping m = ProcMaps.containing(x.entryAddress()).orElseThrow();
            assertThat(m.perms()).startsWith("r-x");
        }
    }

    @Test
    void registeredWhileLoadedUnregisteredOnClose() {
        JitExecutable x = Jit.LOADER.load(SMALL, LoadOptions.defaults());
        long entry = x.entryAddress();
        CodeRegion main = CodeMap.global().find(entry).orElseThrow();
        assertThat(main.symbol()).isEqualTo("bpf_prog_" + ProgramTag.of(SMALL.insns()) + "_small");
        assertThat(x.codeRegions()).hasSize(3); // main, one subprogram, stubs
        for (CodeRegion r : x.codeRegions()) assertThat(CodeMap.global().find(r.start())).contains(r);
        x.close();
        for (CodeRegion r : x.codeRegions()) assertThat(CodeMap.global().find(r.start())).isEmpty();
        assertThatThrownBy(() -> x.run(RunContext.builder().build())).isInstanceOf(IllegalStateException.class);
        x.close(); // idempotent
    }

    @Test
    void closeWaitsForRunsInProgress() throws Exception {
        java.util.concurrent.CountDownLatch inHelper = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        dev.bpf4j.runtime.HelperRegistry h = dev.bpf4j.runtime.HelperRegistry.builder().add(1, "park", (call, a, b, c, d, e) -> {
            inHelper.countDown();
            try {
                release.await();
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
            return 41;
        }).build();
        JitExecutable x = Jit.LOADER.load(prog("park", call(1), alu64(ADD, 0, 1), exit()), LoadOptions.defaults().withHelpers(h));
        java.util.concurrent.FutureTask<Long> run = new java.util.concurrent.FutureTask<>(() -> x.run(RunContext.builder().build()));
        new Thread(run).start();
        inHelper.await();
        Thread closer = new Thread(x::close);
        closer.start();
        closer.join(200);
        assertThat(closer.isAlive()).as("close waits while the run is inside the code").isTrue();
        release.countDown();
        assertThat(run.get()).isEqualTo(42);
        closer.join();
        assertThatThrownBy(() -> x.run(RunContext.builder().build())).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void hundredThousandLoadsAndClosesDoNotLeak() throws IOException {
        int regionsBefore = CodeMap.global().size();
        // Warm up (JIT compilation of the compiler itself, pools) before taking the baseline.
        for (int i = 0; i < 20_000; i++) loadRunClose(i);
        long mapsBefore = mapsLines(), vmBefore = statusKb("VmSize:"), rssBefore = rssKb();
        for (int i = 0; i < 100_000; i++) loadRunClose(i);
        long mapsAfter = mapsLines(), vmAfter = statusKb("VmSize:"), rssAfter = rssKb();
        // A leaked code mapping per program would add up to 100,000 mappings and 400 MB of address space;
        // a leaked env block or code-map entry per program would add 10+ MB of resident memory. (The Java
        // heap may still settle after the warm-up: the bound leaves room for that.)
        assertThat(mapsAfter - mapsBefore).as("mappings grew from %d to %d", mapsBefore, mapsAfter).isLessThan(64);
        assertThat(vmAfter - vmBefore).as("VmSize grew from %d kB to %d kB", vmBefore, vmAfter).isLessThan(64 * 1024);
        assertThat(rssAfter - rssBefore).as("RSS grew from %d kB to %d kB", rssBefore, rssAfter).isLessThan(96 * 1024);
        assertThat(CodeMap.global().size()).isEqualTo(regionsBefore);
    }

    private static void loadRunClose(int i) {
        Program p = prog("p" + (i % 10), mov64(0, i), alu64(ADD, 0, 1), exit());
        try (JitExecutable x = Jit.LOADER.load(p, LoadOptions.defaults())) {
            assertThat(x.run(RunContext.builder().build())).isEqualTo(i + 1);
        }
    }

    private static long mapsLines() throws IOException {
        return Files.readAllLines(Path.of("/proc/self/maps")).size();
    }

    private static long statusKb(String field) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith(field)) return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
        throw new IllegalStateException("no " + field);
    }

    private static long rssKb() throws IOException {
        System.gc();
        return statusKb("VmRSS:");
    }
}
