package dev.bpf4j.fuzz;

import dev.bpf4j.kernel.KernelBpf;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Linux as the third oracle: kernel-comparable grammar programs (objects and memory-block programs) on
 * the interpreter, the JIT and Linux. Every verdict category is counted; where both run a program, r0,
 * packet/memory, ctx_out and every map must be identical. "Only bpf4j rejects" is printed (verifier work
 * of issue 21), not failed. Skipped with the reason where bpf() is refused.
 */
class KernelOracleTest {
    static final long SEED = FixedCampaignTest.SEED;

    @Test void linuxRunsWhatBothAcceptTheSameWay() {
        KernelBpf.Availability k = KernelBpf.availability();
        Assumptions.assumeTrue(k.available(), () -> "the kernel oracle needs bpf(): " + k.reason());
        DifferentialHarness h = DifferentialHarness.of(List.of("interp", "jit", "kernel"));
        GrammarGenerator g = new GrammarGenerator(GrammarOptions.defaults().withKernelComparable(true));
        Map<KernelVerdict, Integer> verdicts = new EnumMap<>(KernelVerdict.class);
        StringBuilder differences = new StringBuilder();
        for (long i = 0; i < 150; i++) {
            DifferentialReport r = h.run(g.generate(SEED + i));
            verdicts.merge(r.kernelVerdict(), 1, Integer::sum);
            for (Difference d : r.differences()) {
                if (d.kind().equals("kernel-verdict")) System.out.println("only bpf4j rejects (seed " + (SEED + i) + "): " + d.detail());
                else differences.append(r.describe());
            }
        }
        System.out.println("kernel oracle seed " + SEED + ": " + verdicts);
        assertThat(differences.toString()).as("seed " + SEED).isEmpty();
        assertThat(verdicts.getOrDefault(KernelVerdict.BOTH_ACCEPT, 0)).as("programs both run").isGreaterThan(20);
        assertThat(verdicts.getOrDefault(KernelVerdict.NOT_COMPARABLE, 0)).as("kernel-comparable programs are comparable").isLessThan(15);
    }
}
