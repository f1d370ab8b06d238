package dev.bpf4j.jit.runtime;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.jit.JitEngine;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * JitExecutable.run caches the state of the thread that ran it last instead of looking it up: a
 * run must still publish in, and be found through, its own thread's state, whichever thread ran
 * before it. The program calls a Java helper, which the bridge finds through the calling thread's
 * current run: a run entered with another thread's state would fail there, or not hold its slot.
 */
class OwnerThreadCacheTest {
    private static final int PROBE = 1000;
    /** r0 = probe(r1); exit. */
    private static final Program CALLS_PROBE = new Program("probe", List.of(
            new Insn(Opcodes.JMP | Opcodes.CALL, 0, 0, 0, PROBE), new Insn(Opcodes.JMP | Opcodes.EXIT, 0, 0, 0, 0)));

    private final AtomicReference<JitExecutable> self = new AtomicReference<>();

    /** r1 + 1 when the calling thread's slot holds the program and the run's context is the caller's; nested runs for r1 >= 100. */
    private JitExecutable load() {
        HelperRegistry helpers = HelperRegistry.builder().add(PROBE, "probe", (call, r1, r2, r3, r4, r5) -> {
            JitExecutable x = self.get();
            if (!ThreadRuns.get().holds(x.id()) || call.runContext().arg(0) != r1) return -1;
            if (r1 >= 100 && r1 < 103) { // a nested run on the same thread, one level deeper
                long inner = x.run(RunContext.builder().arg(1, r1 + 1).build());
                if (inner != r1 + 2 || !ThreadRuns.get().holds(x.id())) return -2;
            }
            return r1 + 1;
        }).build();
        JitExecutable x = new JitLoader().load(CALLS_PROBE, LoadOptions.defaults().withHelpers(helpers));
        self.set(x);
        return x;
    }

    @Test
    void twoThreadsTakingTurnsEachRunOnTheirOwnState() throws Exception {
        try (JitExecutable x = load()) {
            CyclicBarrier turn = new CyclicBarrier(2);
            long[] bad = new long[2];
            Thread[] threads = new Thread[2];
            for (int k = 0; k < 2; k++) {
                int me = k;
                threads[k] = new Thread(() -> {
                    try {
                        for (int i = 0; i < 2_000; i++) {
                            if (i % 2 == me) { // strictly alternating: every run finds the other thread cached
                                long arg = 10_000L * (me + 1) + i;
                                if (x.run(RunContext.builder().arg(1, arg).build()) != arg + 1) bad[me]++;
                            }
                            turn.await();
                        }
                        for (int i = 0; i < 20_000; i++) { // free-running: racing writes of the cache
                            long arg = 10_000L * (me + 1) + i % 50;
                            if (x.run(RunContext.builder().arg(1, arg).build()) != arg + 1) bad[me]++;
                        }
                    } catch (Exception e) {
                        bad[me] += 1_000_000;
                    }
                });
                threads[k].start();
            }
            for (Thread t : threads) t.join();
            assertThat(bad).containsExactly(0, 0);
            assertThat(ThreadRuns.get().holds(x.id())).isFalse();
        }
    }

    @Test
    void nestedRunsOnTheCachedThreadTakeTheNextLevel() {
        try (JitExecutable x = load()) {
            assertThat(x.run(RunContext.builder().arg(1, 7).build())).isEqualTo(8); // caches this thread
            int depth = ThreadRuns.get().depth();
            assertThat(x.run(RunContext.builder().arg(1, 100).build())).as("three nested runs").isEqualTo(101);
            assertThat(ThreadRuns.get().depth()).isEqualTo(depth);
            assertThat(ThreadRuns.get().holds(x.id())).isFalse();
        }
    }

    @Test
    void aClosedProgramRefusesTheCachedThread() throws Exception {
        JitExecutable x = load();
        RunContext ctx = RunContext.builder().arg(1, 1).build();
        assertThat(x.run(ctx)).isEqualTo(2);
        assertThat(x.run(ctx)).isEqualTo(2);
        Thread other = new Thread(x::close); // closed from another thread: the cache still names this one
        other.start();
        other.join();
        assertThatThrownBy(() -> x.run(ctx)).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThat(ThreadRuns.get().holds(x.id())).isFalse();
    }
}
