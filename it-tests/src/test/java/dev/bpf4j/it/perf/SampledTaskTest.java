package dev.bpf4j.it.perf;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.Engines;
import dev.bpf4j.api.MapDump;
import dev.bpf4j.api.PerfEventSample;
import dev.bpf4j.cli.profile.SampleProgramRunner;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.unwind.sampling.PerfRecord;
import dev.bpf4j.unwind.sampling.TaskComms;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A perf_event program's current-task helpers describe the sampled thread — its tid and pid from the
 * sample record, its name from /proc/PID/task/TID/comm, the CPU from the record — on the interpreter
 * and the JIT alike, never the thread that runs the program. Samples are synthesized (with a procfs
 * laid out in a temporary directory) so the answer is known; {@link KernelSampledTaskTest} checks
 * the same program against Linux on real samples.
 */
class SampledTaskTest {
    private static PerfRecord.Sample sample(int pid, int tid, int cpu) {
        return new PerfRecord.Sample(pid, tid, 0, 0x401000, 1000, null, new byte[0], new long[0], cpu);
    }

    @Test
    void theHelpersAnswerTheSampledThreadOnBothEngines(@TempDir Path proc) throws Exception {
        Files.createDirectories(proc.resolve("4242/task/4243"));
        Files.createDirectories(proc.resolve("4242/task/4250"));
        Files.writeString(proc.resolve("4242/task/4243/comm"), "worker-a\n");
        Files.writeString(proc.resolve("4242/task/4250/comm"), "a-name-of-15-ch\n");
        Files.writeString(proc.resolve("4242/comm"), "the-process\n");
        TaskComms comms = new TaskComms(proc);
        BpfObjectSpec spec = BpfObjectSpec.read(SampledTasks.OBJECT);
        try (SampleProgramRunner runner = new SampleProgramRunner(BpfObject.open(spec), SampledTasks.PROGRAM,
                List.of(Engines.byName("interp"), Engines.byName("jit")), null)) {
            for (int i = 0; i < 3; i++) runner.accept(PerfEventSample.of(sample(4242, 4243, 1), comms));
            runner.accept(PerfEventSample.of(sample(4242, 4250, 0), comms));
            runner.accept(PerfEventSample.of(sample(4242, 4251, 1), comms));   // no comm file: the process's name
            runner.accept(PerfEventSample.of(sample(4242, 4243, -1), comms));  // no CPU recorded: 0
            assertThat(runner.differences()).isEmpty();
            for (SampleProgramRunner.EngineCopy c : runner.copies()) {
                assertThat(SampledTasks.tasks(MapDump.entries(c.object().map("tasks")))).as(c.engine()).isEqualTo(Map.of(
                        "4242/4243/worker-a", 4L, "4242/4250/a-name-of-15-ch", 1L, "4242/4251/the-process", 1L));
                assertThat(SampledTasks.cpus(MapDump.entries(c.object().map("cpus")))).as(c.engine()).isEqualTo(Map.of(0, 2L, 1, 4L));
            }
        }
    }

    @Test
    void aThreadsNameIsReadOncePerSampleSoBothEnginesSeeTheSameName(@TempDir Path proc) throws Exception {
        Files.createDirectories(proc.resolve("7/task/8"));
        Files.writeString(proc.resolve("7/task/8/comm"), "before\n");
        TaskComms comms = new TaskComms(proc);
        PerfEventSample s = PerfEventSample.of(sample(7, 8, 0), comms);
        assertThat(new String(s.task().comm())).isEqualTo("before");
        Files.writeString(proc.resolve("7/task/8/comm"), "after\n");
        // the same sample keeps its name: a replay on the second engine sees what the first saw
        assertThat(new String(s.task().comm())).isEqualTo("before");
        assertThat(s.task().pidTgid()).isEqualTo(7L << 32 | 8);
    }
}
