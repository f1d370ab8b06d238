package dev.bpf4j.it.perf;

import dev.bpf4j.unwind.Frame;
import dev.bpf4j.unwind.ProcessCode;
import dev.bpf4j.unwind.StackTrace;
import dev.bpf4j.unwind.Symbolizer;
import dev.bpf4j.unwind.SyntheticFrames;
import dev.bpf4j.unwind.Unwinder;
import dev.bpf4j.unwind.profile.FrameNames;
import dev.bpf4j.unwind.sampling.PerfRecord;
import dev.bpf4j.unwind.sampling.Sampler;
import dev.bpf4j.unwind.sampling.SamplerOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Java frames of another JVM are named from the perf map it wrote: a child JVM run with
 * {@code -XX:+DumpPerfMapAtExit} spins in a compiled method while bpf4j samples it; once it has exited
 * (and written /tmp/perf-PID.map) each sample is unwound over the child's mappings and named. Most
 * samples' leaf is the compiled {@code PerfMapChild.spin}; without the map they are {@code [unknown]}.
 */
class OtherJvmPerfMapTest {
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void compiledJavaOfAnotherJvmIsNamedFromItsPerfMap() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(java.toString(), "-XX:+UnlockDiagnosticVMOptions", "-XX:+DumpPerfMapAtExit",
                "-XX:+PreserveFramePointer", "-cp", System.getProperty("java.class.path"), PerfMapChild.class.getName(), "1500")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        int pid = (int) child.pid();
        Path map = Path.of("/tmp/perf-" + pid + ".map");
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream()));
            assertThat(out.readLine()).isEqualTo("ready");
            ProcessCode code = ProcessCode.ofProcess(pid, TimeUnit.MILLISECONDS.toNanos(100));
            code.refresh();
            List<PerfRecord.Sample> samples = Collections.synchronizedList(new ArrayList<>());
            SampledChild.sampleUntilExit(new Sampler(SamplerOptions.atFrequency(499), pid, samples::add), child);
            assertThat(map).as("the child's perf map").exists();
            Unwinder unwinder = new Unwinder(code);
            Symbolizer names = new Symbolizer(code, SyntheticFrames.global());
            int named = 0, spin = 0;
            List<PerfRecord.Sample> mine;
            synchronized (samples) { mine = new ArrayList<>(samples); }
            for (PerfRecord.Sample s : mine) {
                if (!s.hasRegs()) continue;
                StackTrace t = unwinder.unwind(s.regIp(), s.sp(), s.bp(), new dev.bpf4j.unwind.SnapshotMemoryView(s.sp(), s.stack()));
                Frame leaf = names.symbolize(t).get(0);
                if (leaf.symbol() != null && map.getFileName().toString().equals(leaf.module())) named++;
                if (FrameNames.of(leaf).equals("long " + PerfMapChild.class.getName() + ".spin(long)")) spin++;
            }
            String summary = mine.size() + " samples, leaf named from the perf map " + named + ", in spin " + spin;
            System.out.println("OtherJvmPerfMapTest: " + summary);
            assertThat(spin).as(summary).isGreaterThanOrEqualTo(mine.size() / 2);
            // without the map nothing names it: the code cache is an anonymous mapping, no file, no ELF symbols
            long spinIp = mine.stream().filter(PerfRecord.Sample::hasRegs).mapToLong(PerfRecord.Sample::regIp)
                    .filter(ip -> FrameNames.of(names.symbolize(ip)).contains(".spin(")).findFirst().orElseThrow();
            assertThat(code.nativeMapping(spinIp)).hasValueSatisfying(m -> assertThat(m.module()).isNull());
        } finally {
            child.destroyForcibly();
            Files.deleteIfExists(map);
        }
    }
}
