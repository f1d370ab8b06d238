package dev.bpf4j.it.perf;

import dev.bpf4j.api.Engines;
import dev.bpf4j.api.PerfEventSample;
import dev.bpf4j.cli.profile.KernelProfile;
import dev.bpf4j.cli.profile.MapStacks;
import dev.bpf4j.cli.profile.ProfileObject;
import dev.bpf4j.cli.profile.SampleProgramRunner;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.unwind.ProcessCode;
import dev.bpf4j.unwind.CfiLookup;
import dev.bpf4j.unwind.Unwinder;
import dev.bpf4j.unwind.sampling.PerfRecord;
import dev.bpf4j.unwind.sampling.SampleFormat;
import dev.bpf4j.unwind.sampling.Sampler;
import dev.bpf4j.unwind.sampling.SamplerOptions;
import dev.bpf4j.unwind.sampling.SamplingRefusedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The Linux kernel as the oracle of the bundled profile program: a CPU-bound child (gcc, frame
 * pointers) is sampled at once by the kernel running profile.o itself ({@code PERF_EVENT_IOC_SET_BPF})
 * and by bpf4j's sampler, whose samples then run profile.o on the interpreter and the JIT. The
 * samples differ, but the stacks do not: every stack id that both the kernel and bpf4j stored must
 * hold the same ips (same user-stack unwind, same jhash2 id), and those shared ids must hold most
 * samples (nine in ten) on both sides. Runs in the kernel-oracle surefire execution; skips where bpf(),
 * perf_event_open or gcc are missing.
 */
class KernelProfileTest {
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theKernelAndBothEnginesStoreTheSameStacksUnderTheSameIds(@TempDir Path dir) throws Exception {
        KernelProfileSide.assumeUsable();
        Path exe = spin(dir);
        BpfObjectSpec spec;
        try (InputStream in = ProfileObject.class.getResourceAsStream("profile.o")) {
            spec = BpfObjectSpec.parse(in.readAllBytes(), "profile.o");
        }
        Process child = new ProcessBuilder(exe.toString(), "8").redirectErrorStream(true).redirectOutput(dir.resolve("out").toFile()).start();
        int pid = (int) child.pid();
        ProcessCode code = ProcessCode.ofProcess(pid, TimeUnit.MILLISECONDS.toNanos(100));
        List<PerfRecord.Sample> recorded = Collections.synchronizedList(new ArrayList<>());
        try (KernelProfile kernel = KernelProfile.load(spec)) {
            code.refresh();
            SamplerOptions options = SamplerOptions.atFrequency(499).withFormat(new SampleFormat(false, SampleFormat.DEFAULT_STACK_SIZE, true));
            Sampler sampler = new Sampler(options, pid, recorded::add);
            try {
                // as `profile --engine kernel` attaches it
                kernel.attach(pid, options.attr(), false);
                sampler.start();
            } catch (SamplingRefusedException e) {
                child.destroyForcibly();
                assumeTrue(false, "perf_event_open refused here: " + e.getMessage());
                return;
            }
            try {
                assertThat(child.waitFor(100, TimeUnit.SECONDS)).isTrue();
            } finally {
                sampler.stop();
                kernel.detach();
            }
            TreeMap<Integer, Long> kernelCounts = kernel.counts();
            TreeMap<Integer, List<Long>> kernelIps = kernel.stacks();

            try (SampleProgramRunner runner = new SampleProgramRunner(BpfObject(spec), ProfileObject.PROGRAM,
                    // The kernel's user callchain follows frame pointers only; bpf4j's CFI walk goes on
                    // through libc's start-up frames (to _start) where the kernel's stops. The oracle
                    // compares ids and ips of the same walk: bpf4j's frame-pointer one.
                    List.of(Engines.byName("interp"), Engines.byName("jit")), new Unwinder(code.jit(), code::isCode, CfiLookup.NONE))) {
                for (PerfRecord.Sample s : recorded) runner.accept(PerfEventSample.of(s));
                assertThat(runner.differences()).isEmpty();
                MapStacks ours = runner.copies().get(0).stacks().orElseThrow();
                assertThat(ours.total()).isEqualTo(recorded.size()).isPositive();
                long kernelTotal = kernelCounts.values().stream().mapToLong(Long::longValue).sum();
                assertThat(kernelTotal).as("samples the kernel ran profile.o on").isPositive();

                long sharedOurs = 0, sharedKernel = 0;
                for (Map.Entry<Integer, List<Long>> e : ours.ips().entrySet()) {
                    List<Long> k = kernelIps.get(e.getKey());
                    if (k == null) continue;
                    assertThat(e.getValue()).as("stack id %d", e.getKey()).isEqualTo(k);
                    sharedOurs += ours.counts().get(e.getKey());
                    sharedKernel += kernelCounts.getOrDefault(e.getKey(), 0L);
                }
                String summary = String.format("bpf4j %d samples in %d ids %s, kernel %d samples in %d ids %s; shared ids hold %d / %d", ours.total(),
                        ours.ips().size(), ours.counts(), kernelTotal, kernelIps.size(), kernelCounts, sharedOurs, sharedKernel);
                System.out.println("KernelProfileTest: " + summary);
                assertThat(sharedOurs).as(summary).isGreaterThanOrEqualTo(ours.total() * 9 / 10);
                assertThat(sharedKernel).as(summary).isGreaterThanOrEqualTo(kernelTotal * 9 / 10);
            }
        } finally {
            child.destroyForcibly();
        }
    }

    private static dev.bpf4j.api.OpenObject BpfObject(BpfObjectSpec spec) { return dev.bpf4j.api.BpfObject.open(spec); }

    /** main -> top -> mid -> leaf, frame pointers kept; argv[1] rounds of about 0.1 s of CPU each. */
    private static Path spin(Path dir) throws IOException, InterruptedException {
        return SampledChild.gcc(dir, "spin", """
                #include <stdlib.h>
                __attribute__((noinline)) long leaf(long n) { volatile long a = 0; for (long i = 0; i < n; i++) a += i ^ (a >> 3); return a; }
                __attribute__((noinline)) long mid(long n) { return leaf(n) + 1; }
                __attribute__((noinline)) long top(long n) { long s = 0; for (int k = 0; k < 2000; k++) s += mid(n); return s; }
                int main(int argc, char **argv) { long s = 0; for (int r = 0; r < atoi(argv[1]); r++) s += top(100000); return s == 42; }
                """, "-fno-omit-frame-pointer");
    }
}
