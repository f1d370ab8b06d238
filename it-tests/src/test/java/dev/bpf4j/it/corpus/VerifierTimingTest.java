package dev.bpf4j.it.corpus;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.BpfProgram;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.object.ProgramSpec;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfException;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.verifier.ValidatedProgram;
import dev.bpf4j.verifier.Validator;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The verifier alone on every program of the clang objects that bpf4j loads: each verified again
 * from the instructions and options the object API loaded it with must give the same processed and
 * state counts (verification is deterministic: no state leaks between loads). With
 * {@code -Dbpf4j.verifierTiming=N} it also verifies the whole set N more times and prints the best
 * round (the measure in docs/verifier.md; printed only, never asserted).
 */
class VerifierTimingTest {
    private record Loaded(String name, Program program, LoadOptions options) {}

    @Test
    void reverifyingGivesTheSameCounts() throws IOException {
        List<Loaded> loaded = new ArrayList<>();
        List<BpfObject> open = new ArrayList<>(); // kept open: the verifier asks their map tables about handles
        try {
            verifyAll(loaded, open);
        } finally {
            open.forEach(BpfObject::close);
        }
    }

    private static void verifyAll(List<Loaded> loaded, List<BpfObject> open) throws IOException {
        for (Path file : ObjectVerifierAgreementTest.objects()) {
            BpfObjectSpec spec;
            try {
                spec = BpfObjectSpec.read(file);
            } catch (BpfException e) {
                continue;
            }
            for (ProgramSpec p : spec.programs()) {
                try {
                    BpfObject o = BpfObject.open(ObjectVerifierAgreementTest.only(spec, p)).load("interp");
                    open.add(o);
                    BpfProgram bp = o.program(p.name());
                    loaded.add(new Loaded(file.getFileName() + ":" + p.name(), bp.program(), bp.loadOptions()));
                } catch (BpfException e) {
                    // refused (the objects of the loader's error tests, helpers bpf4j lacks): not timed
                }
            }
        }
        long processed = 0;
        List<String> first = new ArrayList<>();
        for (Loaded l : loaded) {
            ValidatedProgram v = Validator.analyze(l.program(), l.options());
            processed += v.stats().processedInsns();
            first.add(l.name() + " " + v.stats());
        }
        List<String> again = new ArrayList<>();
        for (Loaded l : loaded) again.add(l.name() + " " + Validator.analyze(l.program(), l.options()).stats());
        assertThat(again).isEqualTo(first);
        assertThat(loaded).as("object programs bpf4j loads").hasSizeGreaterThan(50);
        System.out.printf("verifier on %d object programs: %,d processed instructions%n", loaded.size(), processed);
        int rounds = Integer.getInteger("bpf4j.verifierTiming", 0);
        long best = Long.MAX_VALUE;
        for (int r = 0; r < rounds; r++) {
            long t0 = System.nanoTime();
            for (Loaded l : loaded) Validator.analyze(l.program(), l.options());
            best = Math.min(best, System.nanoTime() - t0);
        }
        if (rounds > 0) System.out.printf("verifier time, best of %d rounds: %.1f ms (%.2f us per processed instruction)%n",
                rounds, best / 1e6, best / 1e3 / processed);
    }
}
