package dev.bpf4j.it.corpus;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;

/** The corpus cases whose engine features have not landed on main yet (see {@link Corpus#LD_ABS} and friends). */
@Disabled("needs LD_ABS/IND, bpf_tail_call + PROG_ARRAY slots and bpf_loop/for_each_map_elem callbacks from branch engext, not on main yet")
class CorpusPendingFeaturesTest {
    static List<CorpusCase> cases() { return Corpus.all().stream().filter(c -> c.pending() != null).toList(); }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void enginesAgree(CorpusCase c) { new CorpusDifferentialTest().enginesAgree(c); }
}
