package dev.bpf4j.jit.runtime;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.jit.JitEngine;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.util.List;

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
        try (JitExecutable x = new JitEngine().load(RET_5, LoadOptions.defaults())) {
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
    void deadThreadsLeaveTheRegistry() throws Exception {
        try (JitExecutable x = new JitEngine().load(RET_5, LoadOptions.defaults())) {
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
