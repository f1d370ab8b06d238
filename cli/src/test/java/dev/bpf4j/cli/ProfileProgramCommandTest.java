package dev.bpf4j.cli;

import dev.bpf4j.cli.trace.StackCount;
import dev.bpf4j.unwind.profile.FoldedStacks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code bpf4j profile} with a perf_event program: the bundled profile on this JVM and on another
 * process started with {@code -- COMMAND}, on both engines; bad objects and programs. Runs that need
 * perf_event_open are skipped where the kernel refuses it.
 */
class ProfileProgramCommandTest {
    private static void assumePerf(CliRunner r) {
        assumeTrue(!(r.status() == 1 && r.err().contains("perf_event")), () -> "perf_event_open refused here: " + r.err());
    }

    /** A C program whose hot path is main -> top -> mid -> leaf, built with frame pointers. */
    private static Path spin(Path dir) throws IOException, InterruptedException {
        Path src = dir.resolve("spin.c"), exe = dir.resolve("spin");
        Files.writeString(src, """
                __attribute__((noinline)) long leaf(long n) { volatile long a = 0; for (long i = 0; i < n; i++) a += i ^ (a >> 3); return a; }
                __attribute__((noinline)) long mid(long n) { return leaf(n) + 1; }
                __attribute__((noinline)) long top(long n) { long s = 0; for (int k = 0; k < 2000; k++) s += mid(n); return s; }
                int main(void) { long s = 0; for (int r = 0; r < 3; r++) s += top(100000); return s == 42; }
                """);
        Process gcc;
        try {
            gcc = new ProcessBuilder("gcc", "-O2", "-fno-omit-frame-pointer", "-o", exe.toString(), src.toString()).inheritIO().start();
        } catch (IOException e) {
            assumeTrue(false, "gcc is not installed: " + e.getMessage());
            return null;
        }
        assumeTrue(gcc.waitFor() == 0, "gcc failed");
        return exe;
    }

    @Test
    void anotherProcessIsProfiledByTheBundledProgramOnBothEngines(@TempDir Path dir) throws Exception {
        Path exe = spin(dir);
        CliRunner r = CliRunner.run("profile", "--engine", "both", "--callchain", "--out", dir.resolve("p").toString(), "-F", "499", "--", exe.toString());
        assumePerf(r);
        assertThat(r.status()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("exit status 0").contains("== engines agree: same stack ids, frames and counts, same maps");
        // Frame pointers from leaf to main: the kernel's walk and bpf4j's agree there. Past main, libc's
        // start-up frames keep no frame pointer: bpf4j goes on by their .eh_frame down to _start, the
        // kernel's walk stops, so the kernel's chain is the same or a prefix of bpf4j's.
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                "(\\d+) compared, identical to bpf4j's unwind (\\d+) \\([^)]*\\); kernel's shorter (\\d+)").matcher(r.out());
        assertThat(m.find()).as(r.out()).isTrue();
        assertThat(Long.parseLong(m.group(2)) + Long.parseLong(m.group(3))).as(r.out())
                .isGreaterThanOrEqualTo(Long.parseLong(m.group(1)) * 9 / 10).isPositive();
        for (String engine : List.of("interp", "jit")) {
            FoldedStacks stacks = FoldedStacks.parse(Files.readString(dir.resolve("p").resolve(engine + ".folded")));
            assertThat(stacks.total()).isPositive();
            // Named from the other process's maps and ELF symbols, unwound over its copied stacks.
            long inLeaf = stacks.counts().entrySet().stream()
                    .filter(e -> e.getKey().size() >= 4 && e.getKey().subList(e.getKey().size() - 4, e.getKey().size()).equals(List.of("main", "top", "mid", "leaf")))
                    .mapToLong(Map.Entry::getValue).sum();
            assertThat(inLeaf).as(stacks.format()).isGreaterThan(stacks.total() / 2);
        }
    }

    /** Two threads named by prctl, each spinning in its own function under a frame-pointer chain. */
    private static Path twoThreads(Path dir) throws IOException, InterruptedException {
        Path src = dir.resolve("two.c"), exe = dir.resolve("two");
        Files.writeString(src, """
                #include <pthread.h>
                #include <sys/prctl.h>
                __attribute__((noinline)) long spin_alpha(long n) { volatile long a = 0; for (long i = 0; i < n; i++) a += i ^ (a >> 3); return a; }
                __attribute__((noinline)) long spin_beta(long n) { volatile long a = 1; for (long i = 0; i < n; i++) a += i ^ (a >> 5); return a; }
                static void *alpha(void *p) { prctl(PR_SET_NAME, "alpha"); long s = 0; for (int k = 0; k < 20000; k++) s += spin_alpha(100000); return (void *)s; }
                static void *beta(void *p) { prctl(PR_SET_NAME, "beta"); long s = 0; for (int k = 0; k < 20000; k++) s += spin_beta(100000); return (void *)s; }
                int main(void) { pthread_t a, b; pthread_create(&a, 0, alpha, 0); pthread_create(&b, 0, beta, 0); pthread_join(a, 0); pthread_join(b, 0); return 0; }
                """);
        Process gcc;
        try {
            gcc = new ProcessBuilder("gcc", "-O2", "-fno-omit-frame-pointer", "-pthread", "-o", exe.toString(), src.toString()).inheritIO().start();
        } catch (IOException e) {
            assumeTrue(false, "gcc is not installed: " + e.getMessage());
            return null;
        }
        assumeTrue(gcc.waitFor() == 0, "gcc failed");
        return exe;
    }

    @Test
    void threadsRootEachThreadsStacksAtItsCommAndTidOnBothEngines(@TempDir Path dir) throws Exception {
        Path exe = twoThreads(dir);
        CliRunner r = CliRunner.run("profile", "--bpf", "--threads", "--engine", "both", "-F", "499", "--duration", "2",
                "--out", dir.resolve("p").toString(), "--", exe.toString());
        assumePerf(r);
        assertThat(r.status()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("== engines agree: same stack ids, frames and counts, same maps");
        FoldedStacks interp = FoldedStacks.parse(Files.readString(dir.resolve("p").resolve("interp.folded")));
        FoldedStacks jit = FoldedStacks.parse(Files.readString(dir.resolve("p").resolve("jit.folded")));
        assertThat(jit.counts()).isEqualTo(interp.counts());
        java.util.Set<String> alphaRoots = new java.util.HashSet<>(), betaRoots = new java.util.HashSet<>();
        long alpha = 0, beta = 0;
        for (Map.Entry<List<String>, Long> e : jit.counts().entrySet()) {
            List<String> stack = e.getKey();
            String root = stack.get(0);
            // Every line starts with its thread's comm-tid; a thread's own function appears only under its root.
            assertThat(root).as(jit.format()).matches("[^;]+-\\d+");
            if (stack.contains("spin_alpha")) {
                assertThat(root).as(jit.format()).startsWith("alpha-");
                alphaRoots.add(root);
                alpha += e.getValue();
            }
            if (stack.contains("spin_beta")) {
                assertThat(root).as(jit.format()).startsWith("beta-");
                betaRoots.add(root);
                beta += e.getValue();
            }
        }
        assertThat(alphaRoots).as(jit.format()).hasSize(1);
        assertThat(betaRoots).as(jit.format()).hasSize(1);
        assertThat(alphaRoots).doesNotContainAnyElementsOf(betaRoots);
        assertThat(alpha).as(jit.format()).isPositive();
        assertThat(beta).as(jit.format()).isPositive();
    }

    /** The threads' roots (comm-tid) of the stacks that contain {@code function}. */
    private static java.util.Set<String> rootsOf(FoldedStacks stacks, String function) {
        java.util.Set<String> out = new java.util.TreeSet<>();
        stacks.counts().keySet().stream().filter(k -> k.contains(function)).forEach(k -> out.add(k.get(0)));
        return out;
    }

    @Test
    void engineAllAlsoRunsTheProgramInLinuxUnderTheSameThreadRoots(@TempDir Path dir) throws Exception {
        Path exe = twoThreads(dir);
        Path p = dir.resolve("p");
        CliRunner r = CliRunner.run("profile", "--bpf", "--threads", "--engine", "all", "-F", "499", "--duration", "2",
                "--out", p.toString(), "--", exe.toString());
        assumePerf(r);
        assumeTrue(!r.out().contains("== kernel: skipped:"), () -> "Linux cannot run the program here: " + r.out());
        assertThat(r.status()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("== engines agree").contains("== kernel: program do_perf_event attached to Linux's own cpu-clock events");
        FoldedStacks jit = FoldedStacks.parse(Files.readString(p.resolve("jit.folded")));
        FoldedStacks kernel = FoldedStacks.parse(Files.readString(p.resolve("kernel.folded")));
        assertThat(FoldedStacks.parse(Files.readString(p.resolve("interp.folded"))).counts()).isEqualTo(jit.counts());
        // Linux takes its own samples, so the counts differ; the threads it names are the same tasks.
        for (String function : List.of("spin_alpha", "spin_beta")) {
            assertThat(rootsOf(kernel, function)).as(kernel.format()).hasSize(1).isEqualTo(rootsOf(jit, function));
        }
        assertThat(rootsOf(kernel, "spin_alpha").iterator().next()).startsWith("alpha-");
        assertThat(rootsOf(kernel, "spin_beta").iterator().next()).startsWith("beta-");
    }

    @Test
    void threadsWithAnObjectThatCountsPerStackIdOnlyIsBadInput(@TempDir Path dir) throws IOException {
        Path obj = dir.resolve("profile.o");
        try (InputStream in = dev.bpf4j.cli.profile.ProfileObject.class.getResourceAsStream("profile.o")) {
            Files.write(obj, in.readAllBytes());
        }
        CliRunner r = CliRunner.run("profile", "--object", obj.toString(), "--threads", "--", "true");
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("--threads: object '" + obj + "' has no counting map keyed per thread");
    }

    @Test
    void theCommandIsEndedAfterTheDuration(@TempDir Path dir) {
        CliRunner r = CliRunner.run("profile", "--duration", "0.5", "--out", dir.toString(), "--", "sleep", "30");
        assumePerf(r);
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).contains("ended at --duration");
    }

    @Test
    void thisJvmWithTheBundledProgramShowsTheJitChainOnBothEngines(@TempDir Path dir) throws IOException {
        CliRunner r = CliRunner.run("profile", "--bpf", "--pid-self", "subprog-chain", "--engine", "both", "-F", "499", "--duration", "1",
                "--out", dir.toString());
        assumePerf(r);
        assertThat(r.status()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("== engines agree");
        assertThat(Files.readString(dir.resolve("jit.folded"))).containsPattern("bpf_prog_[0-9a-f]{16}_demo_chain;bpf_prog_[0-9a-f]{16}_F");
        // This JVM's compiled Java below the chain is named (Compiler.perfmap), the same on both engines' stacks.
        for (String engine : new String[] {"interp", "jit"}) {
            assertThat(Files.readString(dir.resolve(engine + ".folded")))
                    .containsPattern("JniEntry\\.enter\\(long, long, long\\);bpf_prog_[0-9a-f]{16}_demo_chain;");
        }
    }

    @Test
    void aProgramThatIsNotPerfEventOrAMissingObjectIsBadInput(@TempDir Path dir) throws IOException {
        Path obj = dir.resolve("stackcount.o");
        try (InputStream in = StackCount.class.getResourceAsStream("stackcount.o")) {
            Files.write(obj, in.readAllBytes());
        }
        CliRunner r = CliRunner.run("profile", "--object", obj.toString(), "--", "true");
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("program 'stackcount' is KPROBE: profile runs perf_event programs");
        CliRunner missing = CliRunner.run("profile", "--object", dir.resolve("none.o").toString(), "--", "true");
        assertThat(missing.status()).isEqualTo(2);
        assertThat(missing.err()).contains("no such object");
        CliRunner noCommand = CliRunner.run("profile", "--", dir.resolve("no-such-program").toString());
        assertThat(noCommand.status()).isEqualTo(2);
        assertThat(noCommand.err()).contains("no such command: " + dir.resolve("no-such-program"));
        CliRunner both = CliRunner.run("profile", "--pid-self", "subprog-chain", "--", "true");
        assertThat(both.status()).isEqualTo(2);
        assertThat(both.err()).contains("either --pid-self WORKLOAD or -- COMMAND");
    }
}
