package dev.bpf4j.jit.probe;

import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Threads keep calling the tree while another attaches and detaches programs on it (direct JIT and
 * upcall): every call returns the right value and the counters add up to the hits the links saw.
 * Also the per-thread JIT env blocks live on each thread's stack, so concurrent hits never share one.
 */
class ProbeConcurrencyTest {
    static final int ARG = 1000;

    /** block[3] += test_arg(ctx): 1 when the helper's registers are this hit's pt_regs. */
    private static dev.bpf4j.program.Program javaCounter(long block) {
        return P.prog("count_java", P.call(ARG), P.lddw(3, block), P.atomicAdd(3, 0, 24), P.mov64(0, 0), P.exit());
    }

    @Test
    void callsStayCorrectWhileProgramsComeAndGo() throws Exception {
        long top = TestLib.address("top"), mid = TestLib.address("mid");
        long block = NativeMemory.allocate(96);
        NativeMemory.setMemory(block, 96, (byte) 0);
        List<MemoryRegion> regions = List.of(new MemoryRegion("counters", block, 96, true));
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong calls = new AtomicLong();
        List<Thread> callers = new ArrayList<>();
        List<ProbeLink> links = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            Thread th = new Thread(() -> {
                try {
                    for (long a = 0; !stop.get(); a++) {
                        long r = TestLib.call1(top, a);
                        if (r != (3 * a + 8) + (3 * (a + 1) + 8)) throw new AssertionError("top(" + a + ") = " + r);
                        calls.incrementAndGet();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            th.start();
            callers.add(th);
        }
        Executable jit = Engines.JIT_DIRECT.load(ProbeCountTest.counter(1, block), LoadOptions.defaults());
        Executable interp = Engines.INTERP.load(ProbeCountTest.counter(2, block), LoadOptions.defaults());
        // direct JIT code whose Java helper reads the hit's registers: concurrent hits each find their own run
        Executable jitJava = Engines.JIT_DIRECT.load(javaCounter(block), LoadOptions.defaults().withHelpers(HelperRegistry.builder()
                .add(ARG, "test_arg", (call, r1, r2, r3, r4, r5) -> call.runContext().registers().orElseThrow().di() == NativeMemory.getLong(r1 + PtRegsLayout.DI) ? 1 : 1000)
                .build()));
        try {
            for (int round = 0; round < 30 && failure.get() == null; round++) {
                ProbeLink a = NativeProbes.attach(mid, "mid", ProbeProgram.of(jit, regions));
                ProbeLink b = NativeProbes.attach(mid, "mid", ProbeProgram.of(interp, regions));
                ProbeLink c = NativeProbes.attach(mid, "mid", ProbeProgram.of(jitJava, regions));
                assertThat(c.program().direct()).isTrue();
                Thread.sleep(1);
                a.close();
                b.close();
                c.close();
                links.add(a);
                links.add(b);
                links.add(c);
            }
        } finally {
            // Stop the callers before the programs close: a thread may still be in a retired trampoline.
            stop.set(true);
            for (Thread th : callers) th.join();
        }
        jit.close();
        interp.close();
        jitJava.close();
        assertThat(failure.get()).isNull();
        // Read once every caller has stopped: a thread may finish a hit in a just-retired trampoline.
        long hits = links.stream().mapToLong(ProbeLink::hits).sum();
        assertThat(links.stream().mapToLong(ProbeLink::errors).sum()).isZero();
        assertThat(calls.get()).isPositive();
        assertThat(NativeMemory.getLong(block + 8) + NativeMemory.getLong(block + 16) + NativeMemory.getLong(block + 24)).isEqualTo(hits);
        assertThat(hits).isPositive();
        assertThat(ProcessText.read(mid, 5)).isEqualTo(PatchSite.NOP5);
        NativeMemory.free(block);
    }
}
