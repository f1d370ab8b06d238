package dev.bpf4j.it.perf;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.Engines;
import dev.bpf4j.api.MapDump;
import dev.bpf4j.api.PerfEventSample;
import dev.bpf4j.cli.profile.KernelProfile;
import dev.bpf4j.cli.profile.SampleProgramRunner;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.unwind.sampling.KernelSampledProgram;
import dev.bpf4j.unwind.sampling.PerfEventAttr;
import dev.bpf4j.unwind.sampling.PerfRecord;
import dev.bpf4j.unwind.sampling.SampleFormat;
import dev.bpf4j.unwind.sampling.Sampler;
import dev.bpf4j.unwind.sampling.SamplerOptions;
import dev.bpf4j.unwind.sampling.SamplingRefusedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Linux as the oracle of the current-task helpers in a perf_event program: a child with three named
 * CPU-bound threads is sampled at once by the kernel running {@code sampled_task.o} on each thread's
 * cpu-clock event and by bpf4j's sampler, whose samples run the same object on the interpreter and the
 * JIT as they arrive. The samples differ; the tasks must not: both count samples under exactly the same
 * (tgid, pid, comm) keys — the child's three threads, never the thread that runs bpf4j's engines — and
 * bpf4j's per-CPU counts are the CPUs of its sample records. Runs in the kernel-oracle surefire
 * execution; skips where bpf(), perf_event_open or gcc are missing.
 */
class KernelSampledTaskTest {
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theKernelAndBothEnginesSeeTheSampledThreads(@TempDir Path dir) throws Exception {
        KernelProfileSide.assumeUsable();
        Path exe = threads(dir);
        BpfObjectSpec spec = BpfObjectSpec.read(SampledTasks.OBJECT);
        Process child = new ProcessBuilder(exe.toString(), "300", dir.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        int pid = (int) child.pid();
        List<KernelSampledProgram> inKernel = new ArrayList<>();
        try (KernelProfile kernel = KernelProfile.load(spec, SampledTasks.PROGRAM);
             SampleProgramRunner runner = new SampleProgramRunner(BpfObject.open(spec), SampledTasks.PROGRAM,
                     List.of(Engines.byName("interp"), Engines.byName("jit")), null)) {
            // the threads are named and waiting: sampling starts with every name in place
            assertThat(new BufferedReader(new InputStreamReader(child.getInputStream())).readLine()).isEqualTo("ready");
            Set<Integer> tids = tids(pid);
            assertThat(tids).hasSize(3);
            TreeMap<Integer, Long> recordedCpus = new TreeMap<>();
            AtomicInteger recorded = new AtomicInteger();
            SamplerOptions options = SamplerOptions.atFrequency(499).withFormat(new SampleFormat(false, 64, true));
            // the program runs on the reader thread as each sample arrives, as Linux runs it at the sample
            Sampler sampler = new Sampler(options, pid, s -> {
                recorded.incrementAndGet();
                recordedCpus.merge(s.cpu(), 1L, Long::sum);
                runner.accept(PerfEventSample.of(s));
            });
            try {
                for (int tid : tids) {
                    inKernel.add(KernelSampledProgram.attach(PerfEventAttr.cpuClockAtFrequency(499, new SampleFormat(false, 8)), tid,
                            kernel.programFd()));
                }
            } catch (SamplingRefusedException e) {
                assumeTrue(false, "perf_event_open refused here: " + e.getMessage());
                return;
            }
            try {
                SampledChild.sampleUntilExit(sampler, child);
            } finally {
                inKernel.forEach(KernelSampledProgram::close);
            }
            TreeMap<String, Long> kernelTasks = SampledTasks.tasks(kernel.entries("tasks"));
            TreeMap<Integer, Long> kernelCpus = SampledTasks.cpus(kernel.entries("cpus"));
            assertThat(runner.differences()).isEmpty();
            SampleProgramRunner.EngineCopy ours = runner.copies().get(0);
            TreeMap<String, Long> ourTasks = SampledTasks.tasks(MapDump.entries(ours.object().map("tasks")));
            String summary = "kernel " + kernelTasks + " on cpus " + kernelCpus + "; bpf4j " + ourTasks + " on cpus " + recordedCpus;
            System.out.println("KernelSampledTaskTest: " + summary);

            Set<String> expected = new TreeSet<>();
            for (int tid : tids) expected.add(pid + "/" + tid + "/" + Files.readString(dir.resolve("comm-" + tid)).trim());
            assertThat(kernelTasks.keySet()).as(summary).isEqualTo(expected);
            assertThat(ourTasks.keySet()).as(summary).isEqualTo(expected);
            assertThat(SampledTasks.total(ourTasks)).isEqualTo(recorded.get());
            assertThat(SampledTasks.cpus(MapDump.entries(ours.object().map("cpus")))).isEqualTo(recordedCpus);
            assertThat(SampledTasks.total(kernelCpus)).isEqualTo(SampledTasks.total(kernelTasks));
        } finally {
            child.destroyForcibly();
        }
    }

    private static Set<Integer> tids(int pid) throws IOException {
        Set<Integer> out = new TreeSet<>();
        try (Stream<Path> s = Files.list(Path.of("/proc/" + pid + "/task"))) {
            s.forEach(p -> out.add(Integer.parseInt(p.getFileName().toString())));
        }
        return out;
    }

    /**
     * main and two workers, each named by prctl (task-main, task-worker-a, task-worker-b) and writing
     * its name to comm-TID beside the program; "ready" once all are named, then on a line of stdin
     * each spins argv[1] rounds of about 3 ms.
     */
    private static Path threads(Path dir) throws IOException, InterruptedException {
        return SampledChild.gcc(dir, "threads", """
                #define _GNU_SOURCE
                #include <pthread.h>
                #include <stdio.h>
                #include <stdlib.h>
                #include <sys/prctl.h>
                #include <sys/syscall.h>
                #include <unistd.h>
                static long rounds;
                static pthread_barrier_t barrier;
                static const char *dir;
                static volatile long sink;
                static void name(const char *n) {
                    char path[4096];
                    prctl(PR_SET_NAME, n);
                    snprintf(path, sizeof path, "%s/comm-%ld", dir, (long)syscall(SYS_gettid));
                    FILE *f = fopen(path, "w"); fputs(n, f); fclose(f);
                }
                static void spin(void) {
                    for (long r = 0; r < rounds; r++) { volatile long a = 0; for (long i = 0; i < 1000000; i++) a += i ^ (a >> 3); sink += a; }
                }
                static void *worker(void *n) { name(n); pthread_barrier_wait(&barrier); pthread_barrier_wait(&barrier); spin(); return 0; }
                int main(int argc, char **argv) {
                    pthread_t a, b;
                    rounds = atol(argv[1]);
                    dir = argv[2];
                    name("task-main");
                    pthread_barrier_init(&barrier, 0, 3);
                    pthread_create(&a, 0, worker, "task-worker-a");
                    pthread_create(&b, 0, worker, "task-worker-b");
                    pthread_barrier_wait(&barrier);
                    puts("ready"); fflush(stdout);
                    getchar();
                    pthread_barrier_wait(&barrier);
                    spin();
                    pthread_join(a, 0); pthread_join(b, 0);
                    return 0;
                }
                """, "-pthread");
    }
}
