package dev.bpf4j.jit.probe;

import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.PtRegs;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static dev.bpf4j.isa.Opcodes.DW;
import static dev.bpf4j.jit.probe.P.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * JIT programs that call Java helpers run direct from the trampoline: the helper finds its run from
 * the env block, sees the hit's pt_regs as registers and as region 0, and its failures end only the
 * run (counted, kept for lastError, the function completes) — the same outcomes on every engine.
 */
class ProbeJavaHelperTest {
    static final int SEEN = 1000, THROW = 1001, ERROR = 1002, KEEP = 1003, CALL_LEAF = 1004, ADD = 1005;

    /** What the {@code seen} helper saw, per hit: ip and rdi of the registers, whether r1 is region 0 and readable. */
    private static final List<long[]> SEEN_LOG = new ArrayList<>();
    private static final AtomicReference<HelperCall> KEPT = new AtomicReference<>();

    private static HelperRegistry helpers() {
        return HelperRegistry.builder()
                .add(SEEN, "test_seen", (call, r1, r2, r3, r4, r5) -> {
                    RunContext ctx = call.runContext();
                    PtRegs regs = ctx.registers().orElseThrow();
                    MemoryRegion first = ctx.regions().get(0);
                    synchronized (SEEN_LOG) {
                        SEEN_LOG.add(new long[]{regs.ip(), regs.di(), first.start() == r1 ? 1 : 0,
                                call.accessible(r1, PtRegsLayout.SIZE, false) ? 1 : 0, call.accessible(r1, 8, true) ? 1 : 0});
                    }
                    return r2 + 1;
                })
                .add(THROW, "test_throw", (call, r1, r2, r3, r4, r5) -> { throw new IllegalArgumentException("boom " + r2); })
                .add(ERROR, "test_error", (call, r1, r2, r3, r4, r5) -> { throw new AssertionError("an Error from a helper"); })
                .add(KEEP, "test_keep", (call, r1, r2, r3, r4, r5) -> { KEPT.set(call); return 0; })
                .add(CALL_LEAF, "test_call_leaf", (call, r1, r2, r3, r4, r5) -> TestLib.call2(TestLib.address("leaf"), r2, 0))
                .build();
    }

    /** r0 = helper(ctx, 41); *block += r0; block[1] = 1 (reached the end). */
    private static dev.bpf4j.program.Program calling(String name, int helper, long block) {
        return prog(name, mov64(2, 41), call(helper), lddw(3, block), atomicAdd(3, 0, 0),
                mov64(4, 1), stx(DW, 3, 4, 8), mov64(0, 0), exit());
    }

    @ParameterizedTest
    @EnumSource(Engines.class)
    void javaHelperSeesTheHitAndJitRunsDirect(Engines engine) {
        long leaf = TestLib.address("leaf"), mid = TestLib.address("mid");
        long block = NativeMemory.allocate(16);
        NativeMemory.setMemory(block, 16, (byte) 0);
        synchronized (SEEN_LOG) { SEEN_LOG.clear(); }
        try (Executable x = engine.load(calling("seen", SEEN, block), LoadOptions.defaults().withHelpers(helpers()));
             ProbeLink link = NativeProbes.attach(leaf, "leaf", engine.probe(x, List.of(new MemoryRegion("block", block, 16, true))))) {
            assertThat(link.program().direct()).as("JIT code with a Java helper runs direct").isEqualTo(engine == Engines.JIT_DIRECT);
            assertThat(TestLib.call1(mid, 4)).isEqualTo(20);
            assertThat(TestLib.call1(mid, 5)).isEqualTo(23);
            assertThat(link.errors()).as("%s", link.lastError()).isZero();
            assertThat(link.hits()).isEqualTo(2);
            assertThat(NativeMemory.getLong(block)).isEqualTo(2 * 42);
            synchronized (SEEN_LOG) {
                assertThat(SEEN_LOG).hasSize(2);
                for (int i = 0; i < 2; i++) {
                    long[] s = SEEN_LOG.get(i);
                    assertThat(s[0]).as("registers.ip = the traced function").isEqualTo(leaf);
                    assertThat(s[1]).as("registers.di = its first argument").isEqualTo(4 + i);
                    assertThat(s[2]).as("r1 = the pt_regs region").isEqualTo(1);
                    assertThat(s[3]).as("pt_regs readable").isEqualTo(1);
                    assertThat(s[4]).as("pt_regs read-only").isEqualTo(0);
                }
            }
        } finally {
            NativeMemory.free(block);
        }
    }

    /**
     * A hit on a native thread the JVM does not know: Java is not entered there (a HotSpot thread
     * still starting looks the same, and attaching it can deadlock: JavaThreadGate). The hit counts
     * as missed, the helper never runs, the function completes; a Java thread's hit runs as before.
     */
    @ParameterizedTest
    @EnumSource(Engines.class)
    void javaHelperIsNotRunOnANativeThread(Engines engine) {
        Assumptions.assumeTrue(dev.bpf4j.jit.runtime.HotSpotThreads.gate() != null, "no JavaThreadGate: " + dev.bpf4j.jit.runtime.HotSpotThreads.reason());
        long leaf = TestLib.address("leaf"), mid = TestLib.address("mid"), onNewThread = TestLib.address("mid_on_new_thread"), body = TestLib.address("mid_body");
        long block = NativeMemory.allocate(16);
        NativeMemory.setMemory(block, 16, (byte) 0);
        synchronized (SEEN_LOG) { SEEN_LOG.clear(); }
        try (Executable x = engine.load(calling("seen", SEEN, block), LoadOptions.defaults().withHelpers(helpers()));
             ProbeLink link = NativeProbes.attach(leaf, "leaf", engine.probe(x, List.of(new MemoryRegion("block", block, 16, true))))) {
            for (int i = 0; i < 3; i++) assertThat(TestLib.call2(onNewThread, 4 + i, body)).isEqualTo(20 + 3 * i);
            assertThat(link.errors()).as("%s", link.lastError()).isZero();
            assertThat(link.missed()).isEqualTo(3);
            assertThat(link.hits()).as("counted by the trampoline only when it runs the program itself").isEqualTo(engine == Engines.JIT_DIRECT ? 3 : 0);
            assertThat(NativeMemory.getLong(block)).as("the helper never ran").isZero();
            synchronized (SEEN_LOG) { assertThat(SEEN_LOG).isEmpty(); }
            assertThat(TestLib.call1(mid, 4)).isEqualTo(20);
            assertThat(NativeMemory.getLong(block)).as("on a Java thread it runs").isEqualTo(42);
            assertThat(link.missed()).isEqualTo(3);
        } finally {
            NativeMemory.free(block);
        }
    }

    /**
     * A program with a Java helper on libc's malloc while the JVM's own threads allocate: the VM
     * thread, GC workers and compilers call malloc, and Java threads call it from inside the VM.
     * Before JavaThreadGate such a probe stopped the JVM within a second (a compiler thread entering
     * Java, jffi attaching the VM thread) or hung it (a JNI critical region, an attach inside
     * pthread_getattr_np). Now those hits are missed; the test thread's own calls from native code run.
     */
    @ParameterizedTest
    @EnumSource(Engines.class)
    void javaHelperOnMallocRunsOnlyWhereJavaMayRun(Engines engine) throws Exception {
        Assumptions.assumeTrue(dev.bpf4j.jit.runtime.HotSpotThreads.gate() != null, "no JavaThreadGate: " + dev.bpf4j.jit.runtime.HotSpotThreads.reason());
        long malloc = NativeProbes.address("libc.so.6", "malloc"), hammer = AnyEntryLib.O2.address("ae_hammer");
        long block = NativeMemory.allocate(16);
        NativeMemory.setMemory(block, 16, (byte) 0);
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread churn = new Thread(() -> {                       // garbage, GCs and fresh code for the compilers
            long n = 0;
            while (!stop.get()) {
                java.util.function.LongUnaryOperator f = v -> v * 31 + Long.toString(v).length();
                for (int i = 0; i < 10_000; i++) n += f.applyAsLong(i) + new byte[64].length;
                if (n % 7 == 0) System.gc();
            }
        }, "malloc-churn");
        try (Executable x = engine.load(calling("seen", SEEN, block), LoadOptions.defaults().withHelpers(helpers()))) {
            churn.start();
            long calls = 0;
            try (ProbeLink link = NativeProbes.attach(malloc, "malloc", engine.probe(x, List.of(new MemoryRegion("block", block, 16, true))))) {
                long end = System.nanoTime() + 1_500_000_000L;
                while (System.nanoTime() < end) {
                    TestLib.call2(hammer, 200, malloc);           // 200 mallocs from native code on this thread (leaked: 20 KiB a round)
                    calls += 200;
                    System.gc();
                }
                stop.set(true);
                churn.join();
                assertThat(link.errors()).as("%s", link.lastError()).isZero();
                long ran = NativeMemory.getLong(block) / 42;
                assertThat(ran).as("this thread's calls from native code run the helper").isGreaterThanOrEqualTo(calls);
                assertThat(link.missed()).as("the JVM's own mallocs are refused").isPositive();
            }
        } finally {
            stop.set(true);
            churn.join();
            NativeMemory.free(block);
        }
    }

    @ParameterizedTest
    @EnumSource(Engines.class)
    void throwingHelperEndsTheRunOnlyAndIsKept(Engines engine) {
        long leaf = TestLib.address("leaf"), mid = TestLib.address("mid");
        long block = NativeMemory.allocate(32);
        NativeMemory.setMemory(block, 32, (byte) 0);
        List<MemoryRegion> regions = List.of(new MemoryRegion("block", block, 32, true));
        try (Executable t = engine.load(calling("thrower", THROW, block), LoadOptions.defaults().withHelpers(helpers()));
             Executable e = engine.load(calling("errorer", ERROR, block + 16), LoadOptions.defaults().withHelpers(helpers()));
             ProbeLink lt = NativeProbes.attach(leaf, "leaf", engine.probe(t, regions));
             ProbeLink le = NativeProbes.attach(leaf, "leaf", engine.probe(e, regions))) {
            for (int i = 0; i < 3; i++) assertThat(TestLib.call1(mid, 4)).isEqualTo(20);
            assertThat(lt.hits()).isEqualTo(3);
            assertThat(lt.errors()).isEqualTo(3);
            assertThat(le.hits()).isEqualTo(3);
            assertThat(le.errors()).isEqualTo(3);
            assertThat(NativeMemory.getLong(block + 8)).as("the run ended at the helper").isZero();
            assertThat(NativeMemory.getLong(block + 24)).isZero();
            assertThat(lt.lastError()).get().isInstanceOfSatisfying(BpfRuntimeException.class, x -> {
                assertThat(x.kind()).isEqualTo(ErrorKind.HELPER_FAILED);
                assertThat(x.getMessage()).contains("thrower").contains("test_throw").contains("boom 41");
                assertThat(x.pc()).isEqualTo(1);
            });
            assertThat(le.lastError()).get().isInstanceOf(AssertionError.class);
        } finally {
            NativeMemory.free(block);
        }
        assertThat(ProcessText.read(leaf, 5)).isEqualTo(PatchSite.NOP5);
    }

    /** A native fault after a helper's failure on an earlier hit: lastError follows the latest. */
    @Test
    void lastErrorIsTheLatestKind() {
        long leaf = TestLib.address("leaf");
        long block = NativeMemory.allocate(16);
        NativeMemory.setMemory(block, 16, (byte) 0);
        // r2 = pt_regs.si (leaf's b): b == 1 -> helper throws; otherwise read past pt_regs
        dev.bpf4j.program.Program p = prog("mixed", ldx(DW, 2, 1, PtRegsLayout.SI), new dev.bpf4j.isa.Insn(0x55, 2, 0, 3, 1),
                call(THROW), mov64(0, 0), exit(), ldx(DW, 2, 1, PtRegsLayout.SIZE), mov64(0, 0), exit());
        try (Executable x = Engines.JIT_DIRECT.load(p, LoadOptions.defaults().withHelpers(helpers()));
             ProbeLink link = NativeProbes.attach(leaf, "leaf", ProbeProgram.of(x, List.of()))) {
            assertThat(link.program().direct()).isTrue();
            assertThat(TestLib.call2(leaf, 2, 1)).isEqualTo(7);
            assertThat(link.lastError()).get().satisfies(e -> assertThat(((BpfRuntimeException) e).kind()).isEqualTo(ErrorKind.HELPER_FAILED));
            assertThat(TestLib.call2(leaf, 2, 2)).isEqualTo(8);
            assertThat(link.lastError()).get().satisfies(e -> assertThat(((BpfRuntimeException) e).kind()).isEqualTo(ErrorKind.OUT_OF_BOUNDS));
            assertThat(link.errors()).isEqualTo(2);
        } finally {
            NativeMemory.free(block);
        }
    }

    /**
     * bpf_loop (a Java helper) runs a callback 3 times whose Java helper adds i + 1 to block[0] (or
     * throws at i == 1): the callback's helper calls share the run; a failure inside one ends the
     * whole run with the inner helper's error, once.
     */
    @ParameterizedTest
    @EnumSource(Engines.class)
    void callbacksInsideADirectRunShareIt(Engines engine) {
        long leaf = TestLib.address("leaf");
        long block = NativeMemory.allocate(16);
        try (dev.bpf4j.maps.MapTable maps = dev.bpf4j.maps.MapTable.of(List.of())) {
            HelperRegistry helpers = dev.bpf4j.helpers.BpfHelpers.registry(maps).toBuilder()
                    .add(ADD, "test_add", (call, r1, r2, r3, r4, r5) -> {
                        if (!call.accessible(r2, 8, true)) throw new IllegalStateException("ctx not writable");
                        NativeMemory.putLong(r2, NativeMemory.getLong(r2) + r1 + 1);
                        return 0;
                    })
                    .add(THROW, "test_throw", (call, r1, r2, r3, r4, r5) -> {
                        if (r1 == 1) throw new IllegalArgumentException("callback " + r1);
                        return 0;
                    }).build();
            for (int helper : new int[]{ADD, THROW}) {
                NativeMemory.setMemory(block, 16, (byte) 0);
                dev.bpf4j.program.Program p = prog("loop3", mov64(1, 3),
                        new dev.bpf4j.isa.Insn(dev.bpf4j.isa.Opcodes.LDDW, 2, dev.bpf4j.isa.Opcodes.PSEUDO_FUNC, 0, 10),
                        new dev.bpf4j.isa.Insn(0, 0, 0, 0, 0),
                        lddw(3, block), mov64(4, 0), call(dev.bpf4j.runtime.HelperIds.LOOP),
                        lddw(1, block), stx(DW, 1, 0, 8), mov64(0, 0), exit(),
                        call(helper), mov64(0, 0), exit());
                try (Executable x = engine.load(p, LoadOptions.defaults().withHelpers(helpers));
                     ProbeLink link = NativeProbes.attach(leaf, "leaf", engine.probe(x, List.of(new MemoryRegion("block", block, 16, true))))) {
                    assertThat(link.program().direct()).isEqualTo(engine == Engines.JIT_DIRECT);
                    assertThat(TestLib.call2(leaf, 1, 1)).isEqualTo(4);
                    assertThat(link.hits()).isEqualTo(1);
                    if (helper == ADD) {
                        assertThat(link.errors()).as("%s", link.lastError()).isZero();
                        assertThat(NativeMemory.getLong(block)).isEqualTo(1 + 2 + 3);
                        assertThat(NativeMemory.getLong(block + 8)).isEqualTo(3);
                    } else {
                        assertThat(link.errors()).isEqualTo(1);
                        assertThat(NativeMemory.getLong(block + 8)).isZero();
                        assertThat(link.lastError()).get().isInstanceOfSatisfying(BpfRuntimeException.class,
                                e -> assertThat(e.getMessage()).contains("test_throw").contains("callback 1"));
                    }
                }
            }
        } finally {
            NativeMemory.free(block);
        }
    }

    /**
     * A HelperCall kept past its hit fails instead of reading the trampoline's dead stack (JIT) or an
     * idle machine (interpreter): the same exception and message on every engine.
     */
    @ParameterizedTest
    @EnumSource(Engines.class)
    void helperCallKeptPastTheHitFails(Engines engine) {
        long leaf = TestLib.address("leaf");
        KEPT.set(null);
        try (Executable x = engine.load(prog("keep", call(KEEP), mov64(0, 0), exit()), LoadOptions.defaults().withHelpers(helpers()));
             ProbeLink link = NativeProbes.attach(leaf, "leaf", engine.probe(x, List.of()))) {
            assertThat(TestLib.call2(leaf, 1, 1)).isEqualTo(4);
            assertThat(link.errors()).isZero();
            HelperCall kept = KEPT.get();
            assertThat(kept).isNotNull();
            String ended = "the run of 'keep' this HelperCall belonged to has ended";
            assertThatThrownBy(kept::pc).isInstanceOf(IllegalStateException.class).hasMessage(ended);
            assertThatThrownBy(() -> kept.accessible(0, 8, false)).isInstanceOf(IllegalStateException.class).hasMessage(ended);
            assertThatThrownBy(() -> kept.exit(1)).isInstanceOf(IllegalStateException.class).hasMessage(ended);
            assertThat(kept.programName()).isEqualTo("keep");
            assertThat(TestLib.call2(leaf, 1, 1)).as("a later hit is not affected").isEqualTo(4);
            assertThat(link.errors()).isZero();
            assertThat(link.hits()).isEqualTo(2);
        }
    }

    /**
     * A helper that calls the traced function: the nested hit is cut short and counted as missed
     * (no unbounded recursion), the calls complete with their values.
     */
    @ParameterizedTest
    @EnumSource(Engines.class)
    void helperCallingTheTracedFunctionIsNotRecursive(Engines engine) {
        long leaf = TestLib.address("leaf");
        long block = NativeMemory.allocate(16);
        NativeMemory.setMemory(block, 16, (byte) 0);
        try (Executable x = engine.load(calling("reenter", CALL_LEAF, block), LoadOptions.defaults().withHelpers(helpers()));
             ProbeLink link = NativeProbes.attach(leaf, "leaf", engine.probe(x, List.of(new MemoryRegion("block", block, 16, true))))) {
            assertThat(TestLib.call2(leaf, 1, 1)).isEqualTo(4);
            assertThat(link.errors()).as("%s", link.lastError()).isZero();
            assertThat(link.missed()).isEqualTo(1);
            assertThat(NativeMemory.getLong(block)).as("the outer run got leaf(41, 0)").isEqualTo(123);
        } finally {
            NativeMemory.free(block);
        }
    }
}
