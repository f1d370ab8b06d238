package dev.bpf4j.fuzz;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The CI campaign: the seed rotates with the date (override with {@code -Dbpf4j.fuzz.seed}; printed either way).
 * Half the grammar programs are tc objects (maps, callbacks, tail calls, packet, LD_ABS).
 *
 * <p>The grammar without frame escapes must show no mismatch at all: it writes none of the program
 * classes of issue 21. Raw bytes and mutated {@code .data} files do write them (pointers used as
 * numbers, registers read after a call or never passed to a subprogram), and today's validator lets
 * them through, so here they are held to "no crash, no hang"; {@link Issue21CampaignTest} holds every
 * mode to zero mismatches once the verifier is the gate.
 */
class FixedCampaignTest {
    /** Today's date (UTC) as yyyymmdd unless {@code -Dbpf4j.fuzz.seed} says otherwise: each day's CI run covers new programs. */
    static final long SEED = Long.getLong("bpf4j.fuzz.seed", Long.parseLong(java.time.LocalDate.now(java.time.ZoneOffset.UTC)
            .format(java.time.format.DateTimeFormatter.BASIC_ISO_DATE)));

    static {
        System.out.println("FixedCampaignTest seed " + SEED + " (replay a failure with -Dbpf4j.fuzz.seed=" + SEED + ")");
    }

    /** Grammar programs a CI run compares on the three in-process engines, on both cores. */
    static final int GRAMMAR_PROGRAMS = 10_000;

    static Campaign.Result run(ProgramGenerator g, long count, int jobs) {
        Campaign.Result r = new Campaign(DifferentialHarness.inProcess(), System.out::println)
                .run(new Campaign.Plan(g, SEED, count, null, jobs, null, 1));
        System.out.println("fuzz " + g.name() + " seed " + SEED + ": " + r.stats().line());
        System.out.print(r.stats().summary());
        return r;
    }

    static String describe(Campaign.Result r) {
        StringBuilder sb = new StringBuilder("seed " + SEED + "\n");
        for (Campaign.Finding f : r.findings()) sb.append(f.minimised().describe());
        return sb.toString();
    }

    @Test void grammarProgramsShowNoMismatch() {
        Campaign.Result r = run(new GrammarGenerator(), GRAMMAR_PROGRAMS, 2);
        assertThat(r.stats().programs()).isEqualTo(GRAMMAR_PROGRAMS);
        assertThat(r.stats().mismatches()).as(describe(r)).isZero();
        assertThat(r.stats().crashes()).isZero();
        assertThat(r.stats().hangs()).isZero();
        // About half load: the tc objects leave out a null check, a release or a bound on purpose now and
        // then, and call chains go past Linux's 8 frames; the bound only catches a generator whose programs
        // no longer load (it was at 25% when frames of 512 bytes each met a combined-stack rule). 39.8% since
        // tc objects follow Linux on reference leaks, map types passed to helpers, div by 0 and shift immediates.
        assertThat(r.stats().acceptedPercent()).as("programs the gate accepts").isGreaterThan(35);
    }

    @Test void mutatedFilesAndRawBytesNeitherCrashNorHang() {
        Campaign.Result mutated = run(new DataFileMutator(CorpusFiles.collect(GeneratorTest.CORPUS)), 500, 1);
        Campaign.Result bytes = run(new RawBytesGenerator(), 3000, 1);
        for (Campaign.Result r : List.of(mutated, bytes)) {
            assertThat(r.stats().crashes()).as(describe(r)).isZero();
            assertThat(r.stats().hangs()).isZero();
            assertThat(r.stats().accepted()).as("programs the gate accepts").isPositive();
            Map<String, Long> classes = r.stats().byClass();
            assertThat(classes.keySet()).as("mismatch classes").noneMatch(c -> c.startsWith("crash"));
        }
    }
}
