package dev.bpf4j.jit;

import dev.bpf4j.jit.runtime.JitExecutable;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.jit.I.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Closing programs while runs are in progress (the hazard slots of JitExecutable): close waits for
 * a run inside native code and for a nested run; runs racing a close either finish with the right
 * r0 or fail with "closed", never touch unmapped code; close from inside a run is refused.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CloseDuringRunsTest {
    /** r0 = k after {@code spins} back-edges: the run spends its time inside the code. */
    private static Program spinning(String name, int k, int spins) {
        return prog(name, mov64(6, spins), alu64(SUB, 6, 1), jmp(JNE, 6, 0, -2), mov64(0, k), exit());
    }

    @Test
    void closeWaitsForARunInsideNativeCode() throws Exception {
        int spins = 1_000_000_000;
        // *(u64 *)r1 = 1 (the test sees the run is inside the code), then spin, r0 = 7.
        Program p = prog("spin", st(DW, 1, 0, 1), mov64(6, spins), alu64(SUB, 6, 1), jmp(JNE, 6, 0, -2), mov64(0, 7), exit());
        long flag = NativeMemory.allocate(8);
        try {
            NativeMemory.putLong(flag, 0);
            JitExecutable x = Jit.LOADER.load(p, LoadOptions.defaults());
            RunContext ctx = RunContext.builder().arg(1, flag).region(new MemoryRegion("flag", flag, 8, true)).budget(2L * spins).build();
            FutureTask<Long> run = new FutureTask<>(() -> x.run(ctx));
            new Thread(run).start();
            while (NativeMemory.getLong(flag) == 0) Thread.onSpinWait();
            assertThat(run.isDone()).as("the run is still spinning when close starts").isFalse();
            x.close();
            assertThat(run.isDone()).as("close returned only after the run left the code").isTrue();
            assertThat(run.get()).isEqualTo(7);
            assertThatThrownBy(() -> x.run(ctx)).isInstanceOf(IllegalStateException.class).hasMessageContaining("is closed");
        } finally {
            NativeMemory.free(flag);
        }
    }

    @Test
    void closeWaitsForANestedRun() throws Exception {
        CountDownLatch parked = new CountDownLatch(1), release = new CountDownLatch(1);
        JitExecutable inner = Jit.LOADER.load(prog("inner", call(2), alu64(ADD, 0, 1), exit()), LoadOptions.defaults()
                .withHelpers(HelperRegistry.builder().add(2, "park", (call, a, b, c, d, e) -> {
                    parked.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException interrupted) {
                        Thread.currentThread().interrupt();
                    }
                    return 40;
                }).build()));
        try (JitExecutable outer = Jit.LOADER.load(prog("outer", call(1), alu64(ADD, 0, 1), exit()), LoadOptions.defaults()
                .withHelpers(HelperRegistry.builder().add(1, "runInner", (call, a, b, c, d, e) -> inner.run(RunContext.builder().build())).build()))) {
            FutureTask<Long> run = new FutureTask<>(() -> outer.run(RunContext.builder().build()));
            new Thread(run).start();
            parked.await();
            Thread closer = new Thread(inner::close);
            closer.start();
            closer.join(300);
            assertThat(closer.isAlive()).as("close waits while a nested run is inside the inner program").isTrue();
            release.countDown();
            assertThat(run.get()).isEqualTo(42);
            closer.join();
            assertThatThrownBy(() -> inner.run(RunContext.builder().build())).hasMessageContaining("is closed");
            // The outer program still runs; its helper now meets the closed inner program.
            assertThatThrownBy(() -> outer.run(RunContext.builder().build())).isInstanceOf(BpfRuntimeException.class)
                    .satisfies(e -> assertThat(((BpfRuntimeException) e).kind()).isEqualTo(ErrorKind.HELPER_FAILED))
                    .hasRootCauseInstanceOf(IllegalStateException.class).hasRootCauseMessage("program 'inner' is closed");
        }
    }

    @Test
    void closeFromInsideItsOwnRunIsRefused() {
        AtomicReference<JitExecutable> self = new AtomicReference<>();
        JitExecutable x = Jit.LOADER.load(prog("selfclose", call(1), exit()), LoadOptions.defaults()
                .withHelpers(HelperRegistry.builder().add(1, "closeSelf", (call, a, b, c, d, e) -> {
                    self.get().close();
                    return 1;
                }).build()));
        self.set(x);
        for (int i = 0; i < 2; i++) { // refused, and the program stays open: the second run gets as far
            assertThatThrownBy(() -> x.run(RunContext.builder().build())).isInstanceOf(BpfRuntimeException.class)
                    .hasRootCauseMessage("program 'selfclose' cannot be closed from inside one of its own runs");
        }
        x.close();
        assertThatThrownBy(() -> x.run(RunContext.builder().build())).hasMessageContaining("is closed");
    }

    /** One loaded program and the r0 it returns. */
    private record Target(JitExecutable exe, long k) {}

    @Test
    void closingWhileThreadsRunGivesTheRightResultOrClosed() throws Exception {
        int workers = 4, rounds = 150;
        AtomicReference<Target> current = new AtomicReference<>(load(0));
        ThreadLocal<Target> nestedTarget = new ThreadLocal<>();
        // outer: r0 = helper() + 1, the helper running this thread's target (a nested run).
        JitExecutable outer = Jit.LOADER.load(prog("outer", call(1), alu64(ADD, 0, 1), exit()), LoadOptions.defaults()
                .withHelpers(HelperRegistry.builder().add(1, "nested", (call, a, b, c, d, e) -> nestedTarget.get().exe().run(RunContext.builder().build())).build()));
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong ok = new AtomicLong(), closed = new AtomicLong();
        List<Throwable> wrong = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            boolean nest = w % 2 == 1;
            Thread t = new Thread(() -> {
                RunContext ctx = RunContext.builder().build();
                while (!stop.get()) {
                    Target target = current.get();
                    try {
                        long r0;
                        if (nest) {
                            nestedTarget.set(target);
                            r0 = outer.run(ctx) - 1;
                        } else {
                            r0 = target.exe().run(ctx);
                        }
                        if (r0 != target.k()) wrong.add(new AssertionError("r0 " + r0 + " from program " + target.k()));
                        ok.incrementAndGet();
                    } catch (IllegalStateException e) {
                        if (!nest && e.getMessage().endsWith("is closed")) closed.incrementAndGet();
                        else wrong.add(e);
                    } catch (BpfRuntimeException e) {
                        if (nest && e.kind() == ErrorKind.HELPER_FAILED && e.getCause() instanceof IllegalStateException
                                && e.getCause().getMessage().endsWith("is closed")) closed.incrementAndGet();
                        else wrong.add(e);
                    } catch (Throwable e) {
                        wrong.add(e);
                    }
                }
            });
            threads.add(t);
            t.start();
        }
        try {
            for (int i = 1; i <= rounds; i++) {
                Target next = load(i);
                LockSupportSleep.random();
                Target old = current.get();
                old.exe().close();               // workers are still running it
                current.set(next);
            }
        } finally {
            stop.set(true);
            for (Thread t : threads) t.join();
            current.get().exe().close();
            outer.close();
        }
        assertThat(wrong).isEmpty();
        assertThat(ok.get()).as("runs that finished").isGreaterThan(rounds);
        assertThat(closed.get()).as("runs that met a closed program").isPositive();
    }

    private static Target load(int k) {
        return new Target(Jit.LOADER.load(spinning("t" + k, k, 500), LoadOptions.defaults()), k);
    }

    private static final class LockSupportSleep {
        static void random() { java.util.concurrent.locks.LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(50_000, 1_000_000)); }
    }
}
