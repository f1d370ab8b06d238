package dev.bpf4j.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bpf4j.conformance.DataFile;
import dev.bpf4j.asm.Assembler;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfException;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.verifier.Validator;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The conformance corpus ({@code it-tests/src/test/resources/conformance/**.data}) on the kernel
 * and on the interpreter, with the suites' conventions (r1 = mem, r2 = length, helper 5 "unwind").
 * Every file the kernel accepts must give the interpreter's r0 and memory exactly; files the
 * kernel refuses (or cannot run comparably: helper 5) are counted and reported, not failed.
 * Override the corpus directory with {@code -Dbpf4j.conformance.dir}.
 */
class ConformanceKernelTest {
    static final HelperRegistry UNWIND = HelperRegistry.builder()
            .add(5, "unwind", (call, r1, r2, r3, r4, r5) -> {
                if (r1 == 0) call.exit(0);
                return r1;
            }).build();
    static final LoadOptions SUITE = LoadOptions.defaults().withEntryArgs(2).withHelpers(UNWIND);

    @BeforeEach void needsBpf() { KernelAssumptions.assumeBpf(); }

    static List<Path> corpus() throws IOException {
        Path dir = Path.of(System.getProperty("bpf4j.conformance.dir", "../it-tests/src/test/resources/conformance"));
        Assumptions.assumeTrue(Files.isDirectory(dir), () -> "skipped: no conformance corpus at " + dir.toAbsolutePath());
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> p.toString().endsWith(".data")).sorted().toList();
        }
    }

    static Program program(DataFile f) {
        if (f.asm().isPresent()) return Assembler.assembleProgram(f.name(), f.asm().get());
        return new Program(f.name(), Arrays.asList(Insn.decodeAll(f.rawBytes().orElseThrow())));
    }

    @Test void kernelAcceptedFilesMatchTheInterpreterExactly() throws IOException {
        List<Path> files = corpus();
        int compared = 0, unparsed = 0;
        List<String> mismatches = new ArrayList<>();
        List<String> resultDiffers = new ArrayList<>();
        List<String> validatorOnly = new ArrayList<>(); // bpf4j's validator refuses what the kernel accepts
        Map<String, List<String>> notRun = new TreeMap<>(); // reason -> files
        for (Path file : files) {
            DataFile f;
            Program p;
            try {
                f = DataFile.read(file);
                if (f.skipped()) { notRun.computeIfAbsent("skipped by the parser", k -> new ArrayList<>()).add(file.toString()); continue; }
                p = program(f);
            } catch (BpfException | IllegalArgumentException e) {
                unparsed++;
                continue;
            }
            byte[] mem = f.mem().orElse(null);
            Differential.Outcome k = Differential.run(Differential.KERNEL, p, SUITE, mem, true);
            Differential.Outcome i = Differential.run(Differential.INTERP, p, SUITE, mem, true);
            if (!k.ok()) {
                // Group by reason, numbers blanked so that one reason is one line.
                String why = k.error() instanceof KernelRejectedException r
                        ? "kernel verifier rejected (" + r.errnoName() + "): " + lastLine(r.verifierLog()).replaceAll("\\d+", "N")
                        : k.error() instanceof KernelLoadException ? "not comparable: " + k.error().getMessage().replaceAll(".*: helper", "helper")
                        : "kernel error: " + k.error().getMessage();
                notRun.computeIfAbsent(why, x -> new ArrayList<>())
                        .add(file.getFileName() + (i.ok() ? " (interp ran: " + i + ")" : " (interp: " + i.error().getClass().getSimpleName() + ")"));
                continue;
            }
            if (validatorRejects(p)) validatorOnly.add(file.getFileName().toString());
            compared++;
            if (!k.sameResult(i)) mismatches.add(file + ": kernel " + k + ", interpreter " + i);
            if (f.result().isPresent() && f.result().getAsLong() != k.r0()) {
                resultDiffers.add(String.format("%s: kernel r0 = 0x%x, file expects 0x%x", file, k.r0(), f.result().getAsLong()));
            }
        }
        System.out.printf("conformance on the kernel: %d files, %d compared with the interpreter, %d not run by the kernel, %d not assemblable%n",
                files.size(), compared, notRun.values().stream().mapToInt(List::size).sum(), unparsed);
        notRun.forEach((why, list) -> System.out.printf("  %3d  %s%n       e.g. %s%n", list.size(), why, list.subList(0, Math.min(3, list.size()))));
        System.out.println("  bpf4j's validator refuses but the kernel accepts: " + validatorOnly);
        resultDiffers.forEach(s -> System.out.println("  kernel disagrees with the file's expected result: " + s));
        assertThat(mismatches).as("files the kernel accepted but the interpreter ran differently").isEmpty();
        assertThat(compared).as("files compared").isPositive();
    }

    private static boolean validatorRejects(Program p) {
        try {
            Validator.validate(p, SUITE);
            return false;
        } catch (BpfLoadException e) {
            return true;
        }
    }

    static String lastLine(String log) {
        String[] lines = log.strip().split("\n");
        for (int j = lines.length - 1; j >= 0; j--) {
            String l = lines[j].strip();
            if (!l.isEmpty() && !l.startsWith("processed ") && !l.startsWith("verification time")
                    && !l.startsWith("stack depth") && !l.startsWith("cur state:") && !l.startsWith("old state:")) return l;
        }
        return "(no log)";
    }
}
