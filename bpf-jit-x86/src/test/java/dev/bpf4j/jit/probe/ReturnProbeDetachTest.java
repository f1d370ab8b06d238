package dev.bpf4j.jit.probe;

import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.unwind.CodeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Detaching a return probe while threads are inside the function: their swapped return addresses
 * still lead back to their callers (the return trampoline is never unmapped), with the value the
 * function returned. A return in flight runs the return programs attached when it happens: none
 * after the last detach, a program attached in the meantime otherwise. And under fire ({@link Hammer}): 4 threads
 * call mid in a native loop while a return probe is attached and detached many times — every loop
 * sums right, the program ran exactly as often as counted, every call made entirely while attached
 * was probed, nothing missed or lost.
 */
class ReturnProbeDetachTest {
    @ParameterizedTest
    @EnumSource(Engines.class)
    void aThreadInsideReturnsToItsCallerAfterDetach(Engines engine) throws Exception {
        long flag = ReturnProbeTest.zeroed(16), block = ReturnProbeTest.zeroed(2 * ReturnProbeTest.RECORD);
        List<MemoryRegion> regions = List.of(new MemoryRegion("records", block, 2 * ReturnProbeTest.RECORD, true));
        long fn = RetLib.address("wait_flag");
        byte[] original = ProcessText.read(fn, 16);
        try (Executable a = engine.load(ReturnProbeTest.recorder("first", block, 0), LoadOptions.defaults());
             Executable b = engine.load(ReturnProbeTest.recorder("second", block, ReturnProbeTest.RECORD), LoadOptions.defaults())) {
            // 1: detached, nothing attached when the function returns
            ProbeLink first = NativeProbes.attachReturn(fn, "wait_flag", engine.probe(a, regions));
            Waiter w = new Waiter(flag);
            first.close();
            assertThat(ProcessText.read(fn, 16)).isEqualTo(original);
            assertThat(w.release()).isEqualTo(42);
            assertThat(NativeMemory.getLong(block)).isZero();
            assertThat(first.returnsLost()).isZero();
            // 2: detached, another program attached before the function returns: the return runs it
            first = NativeProbes.attachReturn(fn, "wait_flag", engine.probe(a, regions));
            w = new Waiter(flag);
            first.close();
            try (ProbeLink second = NativeProbes.attachReturn(fn, "wait_flag", engine.probe(b, regions))) {
                assertThat(w.release()).isEqualTo(42);
                assertThat(NativeMemory.getLong(block)).isZero();
                assertThat(NativeMemory.getLong(block + ReturnProbeTest.RECORD)).isEqualTo(1);
                assertThat(NativeMemory.getLong(block + ReturnProbeTest.RECORD + ReturnProbeTest.AX)).isEqualTo(42);
                assertThat(second.hits()).isEqualTo(1);
            }
        }
        assertThat(ProcessText.read(fn, 16)).isEqualTo(original);
        NativeMemory.free(flag);
        NativeMemory.free(block);
    }

    /**
     * Another thread's swapped slot: this thread's shadow stack does not know it (the unwinder's
     * exact lookup gives 0), the other thread's does (the guess a sample's walk takes): the return
     * address into bpf4j_root_call, which called wait_flag.
     */
    @ParameterizedTest
    @EnumSource(Engines.class)
    void anotherThreadsSlotIsGuessedFromItsShadowStack(Engines engine) throws Exception {
        long flag = ReturnProbeTest.zeroed(16), block = ReturnProbeTest.zeroed(ReturnProbeTest.RECORD);
        List<MemoryRegion> regions = List.of(new MemoryRegion("records", block, ReturnProbeTest.RECORD, true));
        long fn = RetLib.address("wait_flag"), trampoline = ReturnTrampoline.get().address();
        try (Executable x = engine.load(ReturnProbeTest.recorder("wait_entry", block, 0), LoadOptions.defaults());
             ProbeLink entry = NativeProbes.attach(fn, "wait_flag", engine.probe(x, regions));
             ProbeLink ret = NativeProbes.attachReturn(fn, "wait_flag", engine.probe(x, regions))) {
            Waiter w = new Waiter(flag);
            long slot = NativeMemory.getLong(block + ReturnProbeTest.SP);    // sp at the entry: the return address's slot
            assertThat(CodeMap.global().originalReturn(trampoline, slot)).as("not this thread's slot").isZero();
            long guessed = CodeMap.global().guessedReturn(trampoline, slot);
            assertThat(RootCall.get().contains(guessed)).as("0x%x in bpf4j_root_call", guessed).isTrue();
            assertThat(w.release()).isEqualTo(42);
            assertThat(CodeMap.global().guessedReturn(trampoline, slot)).as("returned: no entry left").isZero();
            assertThat(ret.hits()).isEqualTo(1);
        }
        NativeMemory.free(flag);
        NativeMemory.free(block);
    }

    /** A thread inside {@code wait_flag(flag)} (called through RootCall): started, and known to be inside once constructed. */
    private static final class Waiter {
        final long flag;
        final AtomicLong result = new AtomicLong(-1);
        final Thread thread;

        Waiter(long flag) throws InterruptedException {
            this.flag = flag;
            NativeMemory.putLong(flag, 0);
            NativeMemory.putLong(flag + 8, 0);
            thread = new Thread(() -> result.set(RootCall.get().call(RetLib.address("wait_flag"), flag)), "waiter");
            thread.start();
            while (NativeMemory.getLongVolatile(flag + 8) == 0) {
                assertThat(thread.isAlive()).isTrue();
                Thread.onSpinWait();
            }
        }

        long release() throws InterruptedException {
            NativeMemory.getAndSetLong(flag, 1);
            thread.join();
            return result.get();
        }
    }

    /**
     * fentry mid: 1,000 cycles on JIT direct, 200 on the interpreter; ae_mid of gcc -O2 (several
     * displaced instructions: the first attach of each cycle waits for every thread to answer a signal): 100.
     */
    @ParameterizedTest
    @CsvSource({"JIT_DIRECT, fentry, 1000", "INTERP, fentry, 200", "JIT_DIRECT, O2, 100"})
    void attachDetachWhileFourThreadsCall(Engines engine, String where, int cycles) throws Exception {
        boolean fentry = where.equals("fentry");
        long mid = fentry ? RetLib.address("mid") : AnyEntryLib.O2.address("ae_mid");
        long hammer = fentry ? RetLib.address("hammer") : AnyEntryLib.O2.address("ae_hammer");
        byte[] original = ProcessText.read(mid, 16);
        long block = ReturnProbeTest.zeroed(ReturnProbeTest.RECORD);
        List<MemoryRegion> regions = List.of(new MemoryRegion("records", block, ReturnProbeTest.RECORD, true));
        Hammer.Result r;
        try (Executable x = engine.load(ReturnProbeTest.recorder("mid_return", block, 0), LoadOptions.defaults())) {
            r = Hammer.run(hammer, mid, fentry ? i -> 3 * i + 2 : i -> 3 * i + 8, cycles,
                    () -> NativeProbes.attachReturn(mid, "mid", engine.probe(x, regions)));
        }
        long hits = r.hits();
        assertThat(NativeMemory.getLong(block)).as("program runs = hits counted").isEqualTo(hits);
        assertThat(hits).as("every call made while attached was probed at its return").isGreaterThanOrEqualTo(r.surelyAttached()).isLessThanOrEqualTo(r.calls());
        assertThat(r.links().get(0).returnsMissed()).isZero();
        assertThat(r.links().get(0).returnsLost()).isZero();
        assertThat(ProcessText.read(mid, 16)).isEqualTo(original);
        System.out.printf("return probe %s %s: %d cycles, %d calls, %d while surely attached, %d hits%n", engine, where, cycles, r.calls(), r.surelyAttached(), hits);
        NativeMemory.free(block);
    }
}
