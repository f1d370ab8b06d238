package dev.bpf4j.cli.conformance;

import dev.bpf4j.cli.BadInputException;
import dev.bpf4j.cli.KernelSkip;
import dev.bpf4j.cli.ProgramLoader;
import dev.bpf4j.conformance.DataFile;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.runtime.BpfException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Runs conformance {@code .data} files on one or more engines with the suites' conventions
 * ({@link ConformanceHelpers}, {@link MemoryBlock}) and judges each file: every engine must give
 * the expected r0 (or an error matching {@code -- error}, see {@link ErrorMatcher}), and with
 * several engines they must also agree with each other.
 */
public final class ConformanceRunner {
    private final List<Engine> engines;

    public ConformanceRunner(List<Engine> engines) {
        if (engines.isEmpty()) throw new IllegalArgumentException("no engine to run on");
        this.engines = List.copyOf(engines);
    }

    /** Every {@code *.data} file under the given files or directories, sorted, recursively. */
    public static List<Path> collect(List<Path> roots) {
        List<Path> out = new ArrayList<>();
        for (Path root : roots) {
            if (Files.isDirectory(root)) {
                try (Stream<Path> s = Files.walk(root)) {
                    s.filter(p -> Files.isRegularFile(p) && p.toString().endsWith(".data")).sorted().forEach(out::add);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot list " + root + ": " + e.getMessage(), e);
                }
            } else if (Files.isRegularFile(root)) {
                out.add(root);
            } else {
                throw new BadInputException("no such file or directory: " + root);
            }
        }
        return out;
    }

    public ConformanceReport runAll(List<Path> files) {
        ConformanceReport report = new ConformanceReport();
        for (Path f : files) report.add(run(f));
        return report;
    }

    /** Parses, runs and judges one file; parse errors fail the file. */
    public CaseResult run(Path file) {
        DataFile data;
        try {
            data = DataFile.read(file);
        } catch (BpfException | UncheckedIOException e) {
            return CaseResult.failed(file, "cannot parse: " + e.getMessage(), List.of());
        }
        if (data.skipped()) return CaseResult.skipped(file, data.skipReason().get());
        List<Outcome> outcomes = new ArrayList<>();
        for (Engine engine : engines) outcomes.add(execute(engine, data));
        return judge(file, data, outcomes);
    }

    /** Assembles, validates, loads and runs on a fresh copy of the memory block. */
    static Outcome execute(Engine engine, DataFile data) {
        try (MemoryBlock mem = MemoryBlock.of(data.mem().orElse(null))) {
            try {
                Program program = ProgramLoader.fromDataFile(data);
                try (Executable exe = Bpf.load(program, engine, ConformanceHelpers.loadOptions(data.mem().isPresent()))) {
                    long r0 = exe.run(mem.context());
                    return Outcome.value(engine.name(), r0, mem.contents());
                }
            } catch (BpfException e) {
                String skip = KernelSkip.reason(e);
                if (skip != null) return Outcome.skipped(engine.name(), skip);
                return Outcome.error(engine.name(), e, mem.contents());
            }
        } catch (RuntimeException | LinkageError | AssertionError | StackOverflowError e) {
            // Anything that is not a bpf4j error is an engine bug: reported, never a passing answer.
            return Outcome.crash(engine.name(), e);
        }
    }

    private CaseResult judge(Path file, DataFile data, List<Outcome> all) {
        // an engine without a verdict (kernel verifier refusal) is neither checked nor compared
        List<Outcome> outcomes = all.stream().filter(o -> !o.skipped()).toList();
        if (outcomes.isEmpty()) {
            return new CaseResult(file, CaseResult.Status.SKIPPED, all.stream().map(o -> o.engine() + ": " + o.message())
                    .collect(Collectors.joining("; ")), all);
        }
        List<String> problems = new ArrayList<>();
        for (Outcome o : outcomes) {
            String p = check(data, o);
            if (p != null) problems.add((engines.size() > 1 ? "[" + o.engine() + "] " : "") + p);
        }
        if (outcomes.size() > 1 && !outcomes.stream().allMatch(o -> o.agreesWith(outcomes.get(0)))) {
            problems.add("engines disagree: " + outcomes.stream().map(o -> o.engine() + " -> " + o)
                    .collect(Collectors.joining("; ")) + (sameMemory(outcomes) ? "" : " (memory block differs afterwards)"));
        }
        return problems.isEmpty() ? CaseResult.passed(file, all)
                : CaseResult.failed(file, String.join("; ", problems), all);
    }

    private static boolean sameMemory(List<Outcome> outcomes) {
        return outcomes.stream().allMatch(o -> java.util.Arrays.equals(o.memAfter(), outcomes.get(0).memAfter()));
    }

    /** Null when the outcome meets the file's expectation, else why not. */
    static String check(DataFile data, Outcome o) {
        if (o.crash()) return o.message();
        if (data.expectsError()) {
            if (!o.failed()) return String.format("expected an error (%s), got r0 = %d (0x%x)", data.error().get(), o.r0(), o.r0());
            return ErrorMatcher.mismatch(data.error().get(), o.message());
        }
        long want = data.result().getAsLong();
        if (o.failed()) return String.format("expected r0 = 0x%x, got %s", want, o);
        return Objects.equals(o.r0(), want) ? null
                : String.format("expected r0 = %d (0x%x), got %d (0x%x)", want, want, o.r0(), o.r0());
    }
}
