package dev.bpf4j.unwind.profile;

import dev.bpf4j.unwind.JvmPerfMap;
import dev.bpf4j.unwind.sampling.SamplerOptions;
import dev.bpf4j.unwind.sampling.SamplingRefusedException;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * This JVM's own compiled Java is named in its own perf samples: a thread spins in a Java method,
 * the profile of this process names the samples' leaf frame {@code long JvmCodeNamesTest.spin(long)}
 * from the perf map HotSpot dumps when the stacks are named (Compiler.perfmap), and the same traces
 * named without it are {@code [unknown]}. A perf map bpf4j had written keeps its lines.
 */
class JvmCodeNamesTest {
    private static final String THREAD = "jvm-names-spin";
    private static final String SPIN = "long dev.bpf4j.unwind.profile.JvmCodeNamesTest.spin(long)";
    /** spin or spinFor, as HotSpot's perf map names them. */
    private static final String SPIN_LEAF = "dev.bpf4j.unwind.profile.JvmCodeNamesTest.spin";

    static long spin(long n) {
        long x = n;
        for (int i = 0; i < 100_000; i++) x = x * 6364136223846793005L + 1442695040888963407L;
        return x;
    }

    /** Spins in {@link #spin} for {@code cpuNanos} of this thread's CPU time. */
    private static void spinFor(long cpuNanos) {
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        long end = cpu.getCurrentThreadCpuTime() + cpuNanos, x = 1;
        while (cpu.getCurrentThreadCpuTime() < end) {
            for (int i = 0; i < 20; i++) x = spin(x);
        }
        if (x == 42) System.out.println(x);
    }

    @Test
    void aSpinningJavaMethodIsNamedInThisJvmsOwnSamples() throws Exception {
        Path map = Path.of("/tmp", "perf-" + ProcessHandle.current().pid() + ".map");
        Files.deleteIfExists(map);
        // The thread exists before sampling starts (new threads are found by a rescan each second)
        // and spin is compiled by then.
        java.util.concurrent.CountDownLatch ready = new java.util.concurrent.CountDownLatch(1), go = new java.util.concurrent.CountDownLatch(1);
        Thread t = new Thread(() -> {
            spinFor(300_000_000L);
            ready.countDown();
            try {
                go.await();
            } catch (InterruptedException e) {
                return;
            }
            spinFor(600_000_000L);
        }, THREAD);
        t.start();
        ready.await();
        Profiler p = Profiler.ofProcess(SamplerOptions.atFrequency(999)).withThreadRoots();
        try {
            p.start();
        } catch (SamplingRefusedException e) {
            t.interrupt();
            assumeTrue(false, "perf_event_open refused here: " + e.getMessage());
        }
        go.countDown();
        t.join();
        p.stop();

        Map<List<String>, Long> named = p.stacks().counts();
        assertThat(p.jvmCodeNamesError()).isNull();
        long total = count(named, s -> true), inSpin = count(named, s -> s.get(s.size() - 1).contains(SPIN_LEAF));
        assertThat(total).as("samples of %s", THREAD).isGreaterThan(100);
        // The thread runs spin except between calls (the CPU-time check): nearly always. HotSpot may inline
        // spin into an OSR compile of spinFor (JDK 25 did once: 346 leaves in spinFor, 244 in spin).
        System.out.printf("this JVM's code named (Java %s): %d of %s's %d samples end in %s or spinFor%n", Runtime.version().feature(),
                inSpin, THREAD, total, SPIN);
        assertThat(inSpin).as("leaves named %s* of %d: %s", SPIN_LEAF, total, named).isGreaterThan(total * 8 / 10);
        assertThat(Files.exists(map)).as("no perf map left behind").isFalse();

        Map<List<String>, Long> unnamed = p.withJvmCodeNames(false).stacks().counts();
        assertThat(count(unnamed, s -> s.stream().anyMatch(f -> f.contains("JvmCodeNamesTest")))).isZero();
        assertThat(count(unnamed, s -> s.get(s.size() - 1).equals(FrameNames.UNKNOWN))).isGreaterThanOrEqualTo(inSpin);
    }

    @Test
    void linesBpf4jWroteToThePerfMapAreKept() throws Exception {
        Path map = Path.of("/tmp", "perf-" + ProcessHandle.current().pid() + ".map");
        String mine = "7f0000001000 40 bpf_prog_0123456789abcdef_kept";
        Files.writeString(map, mine + "\n");
        try {
            JvmPerfMap.Result r = JvmPerfMap.dumpSelf();
            assertThat(r.error()).isNull();
            List<String> lines = Files.readAllLines(map);
            assertThat(lines).contains(mine);
            assertThat(lines).anyMatch(l -> l.endsWith(" Interpreter"));
            assertThat(r.map().orElseThrow().lookup(0x7f0000001010L).name()).isEqualTo("bpf_prog_0123456789abcdef_kept");
        } finally {
            Files.deleteIfExists(map);
        }
    }

    private static long count(Map<List<String>, Long> stacks, java.util.function.Predicate<List<String>> thread) {
        return stacks.entrySet().stream().filter(e -> e.getKey().get(0).equals(THREAD) && thread.test(e.getKey()))
                .mapToLong(Map.Entry::getValue).sum();
    }
}
