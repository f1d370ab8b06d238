package dev.bpf4j.cli.profile;

import dev.bpf4j.api.Engines;
import dev.bpf4j.api.PerfEventSample;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.unwind.CodeMap;
import dev.bpf4j.unwind.CodeRegion;
import dev.bpf4j.unwind.Symbolizer;
import dev.bpf4j.unwind.SyntheticFrames;
import dev.bpf4j.unwind.Unwinder;
import dev.bpf4j.unwind.profile.FoldedStacks;
import dev.bpf4j.unwind.profile.Profiler;
import dev.bpf4j.unwind.sampling.PerfRecord;
import dev.bpf4j.unwind.sampling.Sampler;
import dev.bpf4j.unwind.sampling.SamplerOptions;
import dev.bpf4j.unwind.sampling.SamplingRefusedException;
import dev.bpf4j.unwind.sampling.SampleFormat;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bundled profile program (perf_event, {@code bpf_get_stackid(ctx, &stack_traces, BPF_F_USER_STACK)})
 * replayed on the interpreter and the JIT over the same samples: the stack ids, the ips stored under
 * them and every map must be identical after each sample, and the stacks must be the samples' own —
 * unwound from the sampled registers over the sampled stack copy, not from the replaying thread.
 */
class PerfEventReplayTest {
    private static final long BASE = 0x7f00_0000_0000L;
    private static final List<Engine> ENGINES = List.of(Engines.byName("interp"), Engines.byName("jit"));

    @Test
    void synthesizedSamplesInTheJitChainGiveTheirExactStacksOnBothEngines() {
        try (Executable exe = Engines.byName("jit").load(SubprogramChain.program(), LoadOptions.defaults())) {
            List<CodeRegion> fns = ProfileSession.chainFunctions(exe);
            CodeMap map = new CodeMap();
            fns.forEach(map::register);
            Unwinder unwinder = new Unwinder(map, ip -> map.find(ip).isPresent());
            // Frames of main (0) .. sub3 (3) as in PrologueEpilogueSampleTest; each sample is inside function k's frame.
            ByteBuffer stack = ByteBuffer.allocate(0x500).order(ByteOrder.LITTLE_ENDIAN);
            long[] rbp = new long[4], ra = new long[4];
            for (int k = 0; k < 4; k++) {
                rbp[k] = BASE + 0x400 - 0x100L * k;
                ra[k] = k == 0 ? 0 : fns.get(k - 1).start() + 5;
                stack.putLong((int) (rbp[k] - BASE), k == 0 ? 0 : rbp[k - 1]);
                stack.putLong((int) (rbp[k] - BASE + 8), ra[k]);
            }
            try (SampleProgramRunner runner = new SampleProgramRunner(ProfileObject.open(), ProfileObject.PROGRAM, ENGINES, unwinder)) {
                List<List<Long>> expected = new ArrayList<>();
                long periods = 0;
                for (int k = 0; k < 4; k++) {
                    CodeRegion fn = fns.get(k);
                    long ip = fn.start() + fn.rows().stream().filter(r -> r.rule() == dev.bpf4j.unwind.CfaRule.FRAME_POINTER).findFirst().orElseThrow().startOffset();
                    long sp = rbp[k] - 0x40;
                    byte[] copy = Arrays.copyOfRange(stack.array(), (int) (sp - BASE), stack.capacity());
                    for (int repeat = 0; repeat <= k; repeat++) {   // k+1 samples in function k
                        PerfRecord.Sample s = PerfRecord.Sample.ofFrame(1, 1, 0, ip, rbp[k], sp, ip, copy, new long[0]);
                        long period = 10_101_010L + k;
                        runner.accept(PerfEventSample.of(new PerfRecord.Sample(1, 1, 0, ip, period, s.regs(), copy, new long[0])));
                        periods += period;
                    }
                    List<Long> ips = new ArrayList<>(List.of(ip));
                    for (int i = k; i >= 1; i--) ips.add(ra[i]);
                    expected.add(ips);
                }
                // A sample without user registers: counted apart, no stack id.
                runner.accept(PerfEventSample.of(new PerfRecord.Sample(1, 1, 0, 0xffffffff81000000L, 7, null, new byte[0], new long[0])));
                periods += 7;

                assertThat(runner.differences()).isEmpty();
                for (SampleProgramRunner.EngineCopy c : runner.copies()) {
                    MapStacks stacks = c.stacks().orElseThrow();
                    assertThat(stacks.missed()).as(c.engine()).isZero();
                    assertThat(stacks.total()).as(c.engine()).isEqualTo(1 + 2 + 3 + 4);
                    List<List<Long>> stored = new ArrayList<>(stacks.ips().values());
                    assertThat(stored).as(c.engine()).containsExactlyInAnyOrderElementsOf(expected);
                    for (var e : stacks.ips().entrySet()) {
                        assertThat(stacks.counts().get(e.getKey())).as(c.engine()).isEqualTo((long) e.getValue().size());   // k+1 samples, k+1 frames
                    }
                    assertThat(total(c.object().map("totals"), 0)).as(c.engine() + " sum of sample_period").isEqualTo(periods);
                    assertThat(total(c.object().map("totals"), 1)).as(c.engine() + " samples without user regs").isEqualTo(1);
                    assertThat(c.program().errors()).isZero();
                }
            }
        }
    }

    @Test
    void recordedSamplesOfThisJvmReplayToTheSameIdsAndMapsOnBothEngines() throws Exception {
        SamplerOptions options = SamplerOptions.atFrequency(499).withFormat(new SampleFormat(false, SampleFormat.DEFAULT_STACK_SIZE, true));
        List<PerfRecord.Sample> recorded = Collections.synchronizedList(new ArrayList<>());
        try (Executable exe = Engines.byName("jit").load(SubprogramChain.program(), LoadOptions.defaults())) {
            List<String> chain = ProfileSession.chainFunctions(exe).stream().map(CodeRegion::symbol).toList();
            WorkloadThread workload = new WorkloadThread(exe, SubprogramChain.ITERATIONS_PER_RUN, 1_500_000_000L, Long.MAX_VALUE);
            int tid = workload.tid();
            Sampler sampler = new Sampler(options, s -> { if (s.tid() == tid) recorded.add(s); }).preferThread(tid);
            try {
                sampler.start();
            } catch (SamplingRefusedException e) {
                workload.cancel();
                Assumptions.abort("perf_event_open refused here: " + e.getMessage());
            }
            try {
                workload.go();
                workload.join();
            } finally {
                sampler.stop();
            }
            assertThat(recorded).as("samples of the workload thread").isNotEmpty();
            assertThat(recorded).allSatisfy(s -> {
                assertThat(s.hasRegs()).isTrue();
                assertThat(s.period()).isPositive();
                assertThat(s.regIp()).isEqualTo(s.ip());
            });

            // Replayed after the recording, on this (test) thread: each sample through both engines, maps compared after each.
            Unwinder unwinder = new Unwinder(Profiler.processCode());
            try (SampleProgramRunner runner = new SampleProgramRunner(ProfileObject.open(), ProfileObject.PROGRAM, ENGINES, unwinder)) {
                long periods = 0;
                for (PerfRecord.Sample s : recorded) {
                    runner.accept(PerfEventSample.of(s));
                    periods += s.period();
                    assertThat(runner.differences()).as("after the sample at %x", s.ip()).isEmpty();
                }
                Symbolizer names = new Symbolizer(Profiler.processCode(), SyntheticFrames.global());
                for (SampleProgramRunner.EngineCopy c : runner.copies()) {
                    MapStacks stacks = c.stacks().orElseThrow();
                    assertThat(stacks.total()).isEqualTo(recorded.size());
                    assertThat(total(c.object().map("totals"), 0)).isEqualTo(periods);
                    FoldedStacks folded = stacks.folded(names);
                    // The samples' own stacks: the chain's main and its callees, which the replaying thread never runs.
                    long inChain = folded.counts().entrySet().stream().filter(e -> e.getKey().contains(chain.get(0))).mapToLong(e -> e.getValue()).sum();
                    assertThat(inChain).as(c.engine() + " samples whose stack holds " + chain.get(0)).isPositive();
                    assertThat(folded.counts().keySet().stream().anyMatch(k -> k.contains(chain.get(1)) && k.indexOf(chain.get(1)) > k.indexOf(chain.get(0)))).isTrue();
                }
            }
        }
    }

    private static long total(BpfMap totals, int slot) {
        byte[] key = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(slot).array();
        return ByteBuffer.wrap(totals.lookup(key).orElseThrow()).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }
}
