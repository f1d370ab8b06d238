package dev.bpf4j.kernel;

import dev.bpf4j.conformance.DataFile;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfException;
import dev.bpf4j.runtime.EntryRegisters;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.verifier.Validator;
import dev.bpf4j.verifier.VerifierException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * bpf4j's verifier against Linux's on the conformance corpus: which files each accepts, and why
 * each refuses the ones it refuses. bpf4j must never refuse a file Linux accepts (a program Linux
 * loads must load here); where Linux refuses what bpf4j accepts, the reason is one that
 * docs/verifier.md lists as a difference by design (the RFC's arithmetic, run-time checked memory,
 * loops Linux cannot finish), printed here with its count.
 */
class VerifierAgreementTest {
    @BeforeEach void needsBpf() { KernelAssumptions.assumeBpf(); }

    @Test void bpf4jAcceptsEveryFileLinuxAccepts() throws IOException {
        Map<String, Integer> table = new TreeMap<>();
        Map<String, List<String>> linuxOnlyRejects = new TreeMap<>();
        List<String> bpf4jOnlyRejects = new ArrayList<>();
        for (Path file : ConformanceKernelTest.corpus()) {
            DataFile f;
            Program p;
            try {
                f = DataFile.read(file);
                if (f.skipped()) continue;
                p = ConformanceKernelTest.program(f);
            } catch (BpfException | IllegalArgumentException e) {
                continue;
            }
            String linux = linuxVerdict(p, f.mem().orElse(null));
            if (linux == null) continue; // not comparable (a helper Linux does not have)
            LoadOptions ours = f.mem().isPresent() ? ConformanceKernelTest.SUITE.withEntry(EntryRegisters.MEMORY_BLOCK)
                    : ConformanceKernelTest.SUITE;
            String bpf4j = bpf4jVerdict(p, ours);
            boolean linuxOk = linux.isEmpty(), bpf4jOk = bpf4j.isEmpty();
            table.merge((linuxOk ? "Linux accepts" : "Linux rejects") + ", " + (bpf4jOk ? "bpf4j accepts" : "bpf4j rejects"), 1, Integer::sum);
            if (linuxOk && !bpf4jOk) bpf4jOnlyRejects.add(file.getFileName() + ": " + bpf4j);
            if (!linuxOk && bpf4jOk) linuxOnlyRejects.computeIfAbsent(linux.replaceAll("-?\\d+", "N"), k -> new ArrayList<>()).add(file.getFileName().toString());
        }
        System.out.println("verifier agreement on the conformance corpus:");
        System.out.println("| verdicts | files |\n|---|---:|");
        table.forEach((k, v) -> System.out.println("| " + k + " | " + v + " |"));
        System.out.println("Linux rejects, bpf4j accepts, by Linux's reason:");
        linuxOnlyRejects.forEach((why, files) -> System.out.printf("  %3d  %s  e.g. %s%n", files.size(), why, files.subList(0, Math.min(3, files.size()))));
        assertThat(table).as("files compared").isNotEmpty();
        assertThat(bpf4jOnlyRejects).as("files Linux loads that bpf4j's verifier refuses").isEmpty();
    }

    /** "" when Linux accepts, its verifier's last word when it refuses, null when the file cannot be compared. */
    private static String linuxVerdict(Program p, byte[] mem) {
        // The kernel engine loads on the first run (BPF_PROG_LOAD, then BPF_PROG_TEST_RUN).
        Differential.Outcome k = Differential.run(Differential.KERNEL, p, ConformanceKernelTest.SUITE, mem, true);
        if (k.ok()) return "";
        if (k.error() instanceof KernelRejectedException r) return ConformanceKernelTest.lastLine(r.verifierLog());
        if (k.error() instanceof KernelLoadException) return null; // not comparable (e.g. helper 5)
        return ""; // loaded, then a run-time error: Linux accepted it
    }

    private static String bpf4jVerdict(Program p, LoadOptions o) {
        try {
            Validator.validate(p, o);
            return "";
        } catch (VerifierException e) {
            return e.pc() + ": " + e.reason();
        }
    }
}
