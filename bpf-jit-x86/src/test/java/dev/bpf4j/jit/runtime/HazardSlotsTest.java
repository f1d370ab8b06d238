package dev.bpf4j.jit.runtime;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.jit.JitEngine;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The hazard-slot machinery under JitExecutable.run/close: the barrier, the slots, the thread registry. */
class HazardSlotsTest {
    private static final Program RET_5 = new Program("ret5", List.of(
            new Insn(Opcodes.ALU64 | Opcodes.K | Opcodes.MOV, 0, 0, 0, 5), new Insn(Opcodes.JMP | Opcodes.EXIT, 0, 0, 0, 0)));

    @Test
    void membarrierIsRegisteredUnlessTurnedOff() {
        if (Boolean.getBoolean("bpf4j.jit.noMembarrier")) {
            assertThat(Membarrier.AVAILABLE).isFalse();
            return;
        }
        assumeTrue(Membarrier.AVAILABLE, "membarrier(PRIVATE_EXPEDITED) is refused here: readers fence instead");
        for (int i = 0; i < 10; i++) Membarrier.barrier();
    }

    @Test
    void aSlotHoldsTheProgramOnlyWhileItsRunIsInside() {
        try (JitExecutable x = new JitLoader().load(RET_5, LoadOptions.defaults())) {
            ThreadRuns t = ThreadRuns.get();
            assertThat(t.holds(x.id())).isFalse();
            int level = t.depth();
            t.publish(level, x.id());
            assertThat(t.holds(x.id())).isTrue();
            assertThat(x.run(RunContext.builder().build())).as("a run nested one level deeper").isEqualTo(5);
            assertThat(t.holds(x.id())).isTrue();
            t.retract(level);
            assertThat(t.holds(x.id())).isFalse();
        }
    }

    @Test
    void everyLevelHoldsItsProgramPastTheFirstArrayOfSlots() throws Exception {
        // level 0's slot is a field, deeper ones live in an array that starts with room for 3 and
        // grows; a fresh thread starts at level 0
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread = new Thread(() -> {
            try {
                ThreadRuns t = ThreadRuns.get();
                long[] ids = {101, 102, 103, 104, 105, 106, 107, 108, 109};
                for (int i = 0; i < ids.length; i++) {
                    assertThat(t.depth()).isEqualTo(i);
                    t.publish(i, ids[i]);
                    for (int k = 0; k < ids.length; k++) assertThat(t.holds(ids[k])).as("level %d published, id %d", i, ids[k]).isEqualTo(k <= i);
                }
                for (int i = ids.length - 1; i >= 0; i--) {
                    t.retract(i);
                    for (int k = 0; k < ids.length; k++) assertThat(t.holds(ids[k])).as("level %d retracted, id %d", i, ids[k]).isEqualTo(k < i);
                    assertThat(t.depth()).isEqualTo(i);
                }
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        thread.start();
        thread.join();
        if (failure.get() != null) throw new AssertionError(failure.get());
    }

    @Test
    void deadThreadsLeaveTheRegistry() throws Exception {
        try (JitExecutable x = new JitLoader().load(RET_5, LoadOptions.defaults())) {
            for (int i = 0; i < 600; i++) {
                Thread t = new Thread(() -> x.run(RunContext.builder().build()));
                t.start();
                t.join();
                if (i % 100 == 99) System.gc();
            }
            System.gc();
            Thread last = new Thread(() -> x.run(RunContext.builder().build()));
            last.start();
            last.join();
            // 601 threads registered; pruning at each doubling keeps about twice the live ones (64 minimum).
            assertThat(RunRegistry.size()).isLessThan(300);
        }
    }
}
