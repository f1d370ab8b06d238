package dev.bpf4j.cli.conformance;

import dev.bpf4j.interp.InterpreterEngine;
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

class ConformanceRunnerTest {
    @TempDir Path dir;

    private final ConformanceRunner interp = new ConformanceRunner(List.of(new InterpreterEngine()));

    @Test
    void passesFailsAndSkipsWithReasons() throws Exception {
        write("a/pass.data", "-- asm\nmov %r0, 3\nexit\n-- result\n3\n");
        write("a/wrong.data", "-- asm\nmov %r0, 3\nexit\n-- result\n4\n");
        write("b/noerror.data", "-- asm\nmov %r0, 3\nexit\n-- error\nout of bounds\n");
        write("b/othererror.data", "-- asm\nldxb %r0, [%r1+0]\nexit\n-- error\nbudget exceeded\n");
        write("b/foreign.data", "-- asm\nldxb %r0, [%r1+0]\nexit\n-- error\nubpf_exec: illegal memory access\n");
        write("c/map.data", "-- map\narray 2 4 4 1\n-- asm\nexit\n-- result\n0\n");
        write("c/broken.data", "-- asm\nexit\n-- result\nxyz\n");
        write("c/ignored.txt", "not a test");
        List<Path> files = ConformanceRunner.collect(List.of(dir));
        assertThat(files).hasSize(7);
        ConformanceReport report = interp.runAll(files);
        assertThat(report.summary()).isEqualTo("2 passed, 4 failed, 1 skipped");
        assertThat(reason(report, "wrong.data")).isEqualTo("expected r0 = 4 (0x4), got 3 (0x3)");
        assertThat(reason(report, "noerror.data")).isEqualTo("expected an error (out of bounds), got r0 = 3 (0x3)");
        assertThat(reason(report, "othererror.data")).contains("expected an error containing 'budget exceeded'").contains("out of bounds");
        assertThat(reason(report, "broken.data")).startsWith("cannot parse:").contains("broken.data:4");
        assertThat(report.results()).filteredOn(r -> r.file().endsWith("map.data")).singleElement()
                .satisfies(r -> assertThat(r.reason()).contains("-- map"));
    }

    @Test
    void summaryOmitsSkippedWhenNone() throws Exception {
        write("ok.data", "-- raw\n0x00000007000000b7\n0x0000000000000095\n-- result\n0x7\n");
        assertThat(interp.runAll(ConformanceRunner.collect(List.of(dir))).summary()).isEqualTo("1 passed, 0 failed");
    }

    @Test
    void reportsEnginesThatDisagree() throws Exception {
        Path f = write("d.data", "-- asm\nmov %r0, 3\nexit\n-- result\n3\n");
        ConformanceRunner two = new ConformanceRunner(List.of(new InterpreterEngine(), new OffByOne()));
        CaseResult r = two.run(f);
        assertThat(r.failed()).isTrue();
        assertThat(r.reason()).contains("[broken] expected r0 = 3 (0x3), got 4 (0x4)")
                .contains("engines disagree: interp -> r0 = 3 (0x3); broken -> r0 = 4 (0x4)");
    }

    @Test
    void reportsEnginesThatLeaveDifferentMemory() throws Exception {
        Path f = write("w.data", "-- asm\nstb [%r1+0], 9\nmov %r0, 0\nexit\n-- mem\n01 02\n-- result\n0\n");
        ConformanceRunner two = new ConformanceRunner(List.of(new InterpreterEngine(), new MemoryScribbler()));
        CaseResult r = two.run(f);
        assertThat(r.failed()).isTrue();
        assertThat(r.reason()).contains("engines disagree").contains("memory block differs afterwards");
    }

    @Test
    void unwindHelperEndsTheRunWhenItsArgumentIsZero() throws Exception {
        Path f = write("u.data", "-- asm\nmov %r1, 0\ncall 5\nmov %r0, 7\nexit\n-- result\n0\n");
        assertThat(interp.run(f).passed()).isTrue();
    }

    @Test
    void theMemoryBlockIsFreshForEachEngine() throws Exception {
        Path f = write("m.data", "-- asm\nldxb %r0, [%r1+0]\nadd %r0, 1\nstxb [%r1+0], %r0\nexit\n-- mem\n05\n-- result\n6\n");
        ConformanceRunner two = new ConformanceRunner(List.of(new InterpreterEngine(), new InterpreterEngine()));
        assertThat(two.run(f).passed()).isTrue();
    }

    @Test
    void errorMatcherRule() {
        assertThat(ErrorMatcher.mismatch("out of bounds", "program 'x' pc 3: out of bounds: ...")).isNull();
        assertThat(ErrorMatcher.mismatch("Out Of Bounds", "program 'x' pc 3: out of bounds: ...")).isNull();
        assertThat(ErrorMatcher.mismatch("out of bounds", "program 'x' rejected: 0: ...")).contains("'out of bounds'");
        assertThat(ErrorMatcher.mismatch("Division by zero at PC 3", "program 'x' rejected: 0: ...")).isNull();
    }

    /** An engine that is wrong on purpose: the interpreter's result plus one. */
    private static final class OffByOne implements Engine {
        @Override public String name() { return "broken"; }

        @Override public Executable load(Program program, LoadOptions options) {
            Executable inner = new InterpreterEngine().load(program, options);
            return new Executable() {
                @Override public Program program() { return program; }
                @Override public long run(RunContext context) { return inner.run(context) + 1; }
                @Override public void close() { inner.close(); }
            };
        }
    }

    /** An engine that is wrong on purpose: runs the interpreter, then changes the last byte of the block. */
    private static final class MemoryScribbler implements Engine {
        @Override public String name() { return "scribbler"; }

        @Override public Executable load(Program program, LoadOptions options) {
            Executable inner = new InterpreterEngine().load(program, options);
            return new Executable() {
                @Override public Program program() { return program; }
                @Override public long run(RunContext context) {
                    long r0 = inner.run(context);
                    dev.bpf4j.runtime.MemoryRegion m = context.regions().get(0);
                    dev.bpf4j.runtime.NativeMemory.putByte(m.end() - 1, (byte) 0x55);
                    return r0;
                }
                @Override public void close() { inner.close(); }
            };
        }
    }

    private static String reason(ConformanceReport report, String file) {
        return report.results().stream().filter(r -> r.file().endsWith(file)).findFirst().orElseThrow().reason();
    }

    private Path write(String name, String text) throws Exception {
        Path p = dir.resolve(name);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
        return p;
    }
}
