package dev.bpf4j.cli.conformance;

import dev.bpf4j.api.Engines;
import dev.bpf4j.kernel.KernelBpfException;
import dev.bpf4j.kernel.KernelRejectedException;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the runner judges a kernel that refuses a program (skipped, with the verifier's reason) and a
 * kernel that runs it to another result (a failure): with stand-in "kernel" engines, so the verdicts
 * are checked on every machine, bpf() or not.
 */
class KernelVerdictJudgeTest {
    @TempDir Path dir;

    /** An engine called "kernel" whose runs return {@code r0}, or whose first run throws {@code refusal}. */
    private static Engine kernel(long r0, RuntimeException refusal) {
        return new Engine() {
            @Override public String name() { return "kernel"; }
            @Override public Executable load(Program program, LoadOptions options) {
                return new Executable() {
                    @Override public Program program() { return program; }
                    @Override public long run(RunContext context) {
                        if (refusal != null) throw refusal;
                        return r0;
                    }
                    @Override public void close() { }
                };
            }
        };
    }

    @Test
    void aVerifierRefusalIsASkipWithTheLastLineOfTheLog() throws Exception {
        Path f = dir.resolve("one.data");
        Files.writeString(f, "-- asm\nmov %r0, 1\nexit\n-- result\n1\n");
        KernelRejectedException refused = new KernelRejectedException("one",
                new KernelBpfException("bpf(BPF_PROG_LOAD)", 13, "0: (b7) r0 = 1\nR1 invalid mem access 'scalar'\nprocessed 2 insns (limit 1000000)"));
        CaseResult r = new ConformanceRunner(List.of(Engines.byName("interp"), kernel(0, refused))).run(f);
        assertThat(r.passed()).isTrue();
        assertThat(ConformanceReport.describeSkips(r))
                .containsExactly("SKIP [kernel] " + f + ": the kernel verifier refused it (EACCES): R1 invalid mem access 'scalar'");
    }

    @Test
    void aKernelThatRunsTheProgramToAnotherResultFails() throws Exception {
        Path f = dir.resolve("one.data");
        Files.writeString(f, "-- asm\nmov %r0, 1\nexit\n-- result\n1\n");
        CaseResult r = new ConformanceRunner(List.of(Engines.byName("interp"), kernel(2, null))).run(f);
        assertThat(r.failed()).isTrue();
        assertThat(r.reason()).contains("[kernel] expected r0 = 1 (0x1), got 2 (0x2)", "engines disagree");
        assertThat(r.skippedEngines()).isEmpty();
    }
}
