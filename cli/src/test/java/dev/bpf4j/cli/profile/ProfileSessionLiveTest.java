package dev.bpf4j.cli.profile;

import dev.bpf4j.api.Engines;
import dev.bpf4j.unwind.profile.FoldedStacks;
import dev.bpf4j.unwind.sampling.PerfEventAttr;
import dev.bpf4j.unwind.sampling.SampleFormat;
import dev.bpf4j.unwind.sampling.SamplerOptions;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Samples the JIT-compiled subprogram chain at 999 Hz for 2 s: every sample in its JIT code
 * unwinds to the exact chain (sub3 -> sub2 -> sub1 -> main, then out of the program), prologue and
 * ret samples included, and the folded stacks show the chain nested in that order. Skipped where
 * perf_event_open is refused.
 */
class ProfileSessionLiveTest {
    private static final Pattern MAIN = Pattern.compile("bpf_prog_[0-9a-f]{16}_demo_chain");
    private static final Pattern SUB = Pattern.compile("bpf_prog_[0-9a-f]{16}_F");

    @Test
    void samplesInJitCodeUnwindToTheExactSubprogramChain() {
        SamplerOptions options = SamplerOptions.atFrequency(999).withFormat(new SampleFormat(true, SampleFormat.DEFAULT_STACK_SIZE));
        ProfileReport r = ProfileSession.run(Engines.byName("jit"), new ProfileSession.Settings(options, 2_000_000_000L, false, false));
        assumeTrue(r.perf(), () -> "perf_event_open refused here: " + r.refusal());
        System.out.println(r.summary());
        System.out.println(r.accuracy().describe());
        System.out.println(r.accuracy().describeCallchainByPlace());
        ChainAccuracy.Result a = r.accuracy();
        // Low bounds: on a loaded machine the workload thread gets a fraction of a CPU, and cpu-clock samples CPU time.
        assertThat(a.inProgram()).as("samples in the JIT code").isGreaterThan(60);
        assertThat(a.exact()).as(a.describe()).isEqualTo(a.inProgram());
        // The tiny sub3 puts many samples on prologue/ret instructions, where frame pointers alone fail.
        assertThat(a.naiveExact()).as(a.describe()).isLessThan(a.inProgram());

        // The deepest JIT stacks read main;F;F;F (root first), each subprogram its own symbol.
        int deepest = 0;
        for (Map.Entry<List<String>, Long> e : r.stacks().counts().entrySet()) {
            List<String> f = e.getKey();
            for (int i = 0; i + 3 < f.size(); i++) {
                if (MAIN.matcher(f.get(i)).matches() && SUB.matcher(f.get(i + 1)).matches() && SUB.matcher(f.get(i + 2)).matches()
                        && SUB.matcher(f.get(i + 3)).matches()) {
                    assertThat(f.subList(i + 1, i + 4)).doesNotHaveDuplicates();
                    assertThat(f.size()).as("sub3 is a leaf: %s", f).isEqualTo(i + 4);
                    deepest += e.getValue();
                }
            }
        }
        assertThat(deepest).as("samples in sub3 under sub2, sub1, main").isGreaterThan(5);
        printTop(r.stacks());
    }

    /**
     * Samples in the probe's copy of the chain — the trampoline, the probe program and its
     * subprograms, reached Java → demo_native_work → demo_native_mix → trampoline — unwind exactly
     * through all of them, checked per sample as the Java path's chain is, with the kernel's CALLCHAIN
     * recorded beside.
     */
    @Test
    void samplesInTheProbesCopyOfTheChainUnwindThroughTheTrampolineToTheNativeCaller() {
        SamplerOptions options = SamplerOptions.atFrequency(999).withFormat(new SampleFormat(true, SampleFormat.DEFAULT_STACK_SIZE));
        NativeChainProbe probe;
        try {
            probe = NativeChainProbe.attach(Engines.byName("jit"));
        } catch (RuntimeException e) {
            assumeTrue(false, "the native probe cannot be attached here: " + e.getMessage());
            return;
        }
        try (probe) {
            ProfileReport r = ProfileSession.run(Engines.byName("jit"), new ProfileSession.Settings(options, 2_000_000_000L, false, false), probe);
            assumeTrue(r.perf(), () -> "perf_event_open refused here: " + r.refusal());
            ChainAccuracy.Result a = r.probeAccuracy();
            System.out.println(a.describe("the probe's copy of the chain"));
            System.out.println(a.describeCallchainByPlace());
            assertThat(a.inProgram()).as("samples in the trampoline and the probe's JIT code").isGreaterThan(30);
            assertThat(a.exact()).as(a.describe()).isEqualTo(a.inProgram());
            assertThat(a.withCallchain()).isEqualTo(a.inProgram());
            assertThat(probe.errors()).isZero();
        }
    }

    private static void printTop(FoldedStacks stacks) {
        for (Map.Entry<List<String>, Long> e : stacks.top(8)) System.out.println(e.getValue() + "  " + String.join(";", e.getKey()));
    }
}
