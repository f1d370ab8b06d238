package dev.bpf4j.jit;

import dev.bpf4j.asm.ProgramBuilder;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.unwind.CodeMap;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static dev.bpf4j.isa.Reg.R0;
import static dev.bpf4j.isa.Reg.R1;
import static dev.bpf4j.isa.Reg.R3;
import static dev.bpf4j.isa.Reg.R5;
import static dev.bpf4j.isa.Reg.R6;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link Executable#runRepeated}, the test-run loop: the JIT runs it in native code for programs
 * that call no Java, the interpreter (and the JIT for the others) in Java. Each run sees the previous
 * one's memory, gets the whole budget again, and the loop stops at the first failing run, with the
 * same r0, error and memory on both engines as the same number of single runs.
 */
class RunRepeatedTest {
    private static final int FAULT_AT = 7;
    private static final int BUDGET = 200; // one run executes about 110 instructions

    /** Counts runs in [r1], spins 50 rounds, then faults on the run that counts {@link #FAULT_AT}; r0 = the count. */
    static Program counter(boolean callsJava) {
        ProgramBuilder b = new ProgramBuilder()
                .ldxdw(R6, R1, 0).add64(R6, 1).stxdw(R1, 0, R6)
                .mov64(R3, 0).label("spin").add64(R3, 1).jlt(R3, 50, "spin")
                .jeq(R6, FAULT_AT, "fault");
        if (callsJava) b.mov64(R1, R6).call(JAVA_HELPER);
        return b.mov64(R0, R6).exit()
                .label("fault").lddw(R5, 16).ldxdw(R0, R5, 0).exit()
                .build("counter");
    }

    private static final int JAVA_HELPER = 300;

    private static String outcome(Engine engine, boolean callsJava, int times, boolean repeated, AtomicLong javaCalls) {
        HelperRegistry helpers = HelperRegistry.builder().add(JAVA_HELPER, "count", (call, r1, r2, r3, r4, r5) -> {
            javaCalls.incrementAndGet();
            return r1;
        }).build();
        long mem = NativeMemory.allocate(8);
        try (Executable x = engine.load(counter(callsJava), LoadOptions.defaults().withHelpers(helpers))) {
            NativeMemory.putLong(mem, 0);
            RunContext ctx = RunContext.builder().arg(1, mem).region(new MemoryRegion("counter", mem, 8, true)).budget(BUDGET).build();
            String s;
            try {
                long r0 = 0;
                if (repeated) r0 = x.runRepeated(ctx, times);
                else for (int i = 0; i < times; i++) r0 = x.run(ctx);
                s = "r0=" + r0;
            } catch (BpfRuntimeException e) {
                s = e.kind() + "@" + e.pc();
            }
            return s + " count=" + NativeMemory.getLong(mem);
        } finally {
            NativeMemory.free(mem);
        }
    }

    @Test
    void repeatedRunsEqualSingleRunsOnBothEngines() {
        for (boolean callsJava : new boolean[]{false, true}) {
            for (int times : new int[]{1, 2, 5, FAULT_AT - 1, FAULT_AT, 50}) {
                String want = outcome(Both.INTERP, callsJava, times, false, new AtomicLong());
                for (Engine engine : new Engine[]{Both.INTERP, Jit.ENGINE}) {
                    AtomicLong calls = new AtomicLong();
                    assertThat(outcome(engine, callsJava, times, true, calls))
                            .as("%s callsJava=%s times=%d", engine.name(), callsJava, times).isEqualTo(want);
                    assertThat(calls.get()).isEqualTo(callsJava ? Math.min(times, FAULT_AT - 1) : 0);
                }
            }
        }
        assertThat(outcome(Jit.ENGINE, false, 5, true, new AtomicLong())).isEqualTo("r0=5 count=5");
        assertThat(outcome(Jit.ENGINE, false, 50, true, new AtomicLong())).isEqualTo("OUT_OF_BOUNDS@11 count=7");
    }

    @Test
    void aRepeatedRunAfterAFailureStartsFresh() {
        long mem = NativeMemory.allocate(8);
        try (Executable x = Jit.ENGINE.load(counter(false), LoadOptions.defaults())) {
            NativeMemory.putLong(mem, 0);
            RunContext ctx = RunContext.builder().arg(1, mem).region(new MemoryRegion("counter", mem, 8, true)).budget(BUDGET).build();
            assertThatThrownBy(() -> x.runRepeated(ctx, 100)).isInstanceOf(BpfRuntimeException.class);
            assertThat(x.runRepeated(ctx, 3)).isEqualTo(10);     // runs 8, 9, 10: the failed loop left nothing behind
            assertThat(x.run(ctx)).isEqualTo(11);
        } finally {
            NativeMemory.free(mem);
        }
    }

    @Test
    void refusesFewerThanOneRun() {
        try (Executable x = Jit.ENGINE.load(counter(false), LoadOptions.defaults())) {
            RunContext ctx = RunContext.builder().build();
            assertThatThrownBy(() -> x.runRepeated(ctx, 0)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void theNativeLoopIsNamedInTheCodeMap() {
        long mem = NativeMemory.allocate(8);
        try (Executable x = Jit.ENGINE.load(counter(false), LoadOptions.defaults())) {
            NativeMemory.putLong(mem, 0);
            x.runRepeated(RunContext.builder().arg(1, mem).region(new MemoryRegion("counter", mem, 8, true)).build(), 2);
        } finally {
            NativeMemory.free(mem);
        }
        assertThat(CodeMap.global().regions()).anySatisfy(r -> assertThat(r.symbol()).isEqualTo("bpf4j_test_run"));
    }
}
