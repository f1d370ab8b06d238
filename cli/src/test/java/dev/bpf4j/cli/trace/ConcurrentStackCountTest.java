package dev.bpf4j.cli.trace;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.ObjectLoadOptions;
import dev.bpf4j.jit.probe.NativeProbes;
import dev.bpf4j.jit.probe.ProbeLink;
import dev.bpf4j.jit.probe.ProbeProgram;
import dev.bpf4j.jit.probe.RootCall;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Java API behind {@code bpf4j trace}: the bundled stackcount program attached to leaf while
 * several threads call drive(3) at once, under each engine. Every count is exactly
 * threads x calls x the count of one call, and the engines agree id for id (the root thunk makes a
 * stack the same ips whichever thread, and whatever Java frames, called it).
 */
class ConcurrentStackCountTest {
    static final int THREADS = 4, CALLS = 50;

    @Test
    void countsAreExactUnderConcurrentCallsOnBothEngines() throws Exception {
        long leaf = NativeProbes.address(TraceLib.path().toString(), "leaf");
        long drive = NativeProbes.address(TraceLib.path().toString(), "drive");
        Map<String, List<String>> byIdPerEngine = new LinkedHashMap<>();
        for (String engine : List.of("interp", "jit")) {
            try (BpfObject obj = StackCount.open().load(ObjectLoadOptions.engine(engine))) {
                ProbeProgram program = ProbeProgram.of(obj.program(StackCount.PROGRAM).defaultExecutable(), obj.mapTable().regions());
                // the JIT calls stackcount directly; its bpf_get_stackid reaches Java through the bridge
                assertThat(program.direct()).isEqualTo(engine.equals("jit"));
                try (ProbeLink link = NativeProbes.attach(leaf, "leaf", program)) {
                    callConcurrently(drive);
                    assertThat(link.errors()).as("%s", link.lastError()).isZero();
                    assertThat(link.missed()).isZero();
                    assertThat(link.hits()).isEqualTo(THREADS * CALLS * 10L);
                }
                StackCounts stacks = StackCounts.read(obj.maps()).orElseThrow();
                Map<String, Long> expected = new LinkedHashMap<>();
                for (String line : TraceCommandTest.LEAF) {
                    int sp = line.lastIndexOf(' ');
                    expected.put(line.substring(0, sp), THREADS * CALLS * Long.parseLong(line.substring(sp + 1)));
                }
                assertThat(stacks.folded()).as(engine).containsExactlyEntriesOf(expected);
                assertThat(stacks.stacks()).noneMatch(StackCounts.Stack::lost);
                byIdPerEngine.put(engine, stacks.byId());
            }
        }
        assertThat(byIdPerEngine.get("jit")).isEqualTo(byIdPerEngine.get("interp"));
    }

    private static void callConcurrently(long drive) throws Exception {
        CyclicBarrier start = new CyclicBarrier(THREADS);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            Thread th = new Thread(() -> {
                try {
                    start.await();
                    for (int i = 0; i < CALLS; i++) {
                        long r = RootCall.get().call(drive, 3);
                        if (r != TraceLib.drive(3)) throw new AssertionError("drive(3) = " + r);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            th.start();
            threads.add(th);
        }
        for (Thread th : threads) th.join();
        assertThat(failure.get()).isNull();
    }
}
