package dev.bpf4j.interp;

import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static dev.bpf4j.interp.Asm.*;
import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** One Executable run from several threads at once: each run has its own registers, stack and frames. */
class ConcurrencyTest {
    /**
     * [r10-8] = r1; r2 = 2000; loop: r3 = [r10-8]; r3 += 1; call sub(r3) ; [r10-8] = r0; r2 -= 1;
     * if r2 != 0 goto loop; r0 = [r10-8]; exit | sub: [r10-8] = r1; r0 = [r10-8]; exit.
     * Returns r1 + 2000 only if no other run touched this run's frames.
     */
    static final dev.bpf4j.program.Program PROGRAM = prog(
            stx(DW, 10, 1, -8), mov(6, 2000),
            /* 2 */ ldx(DW, 1, 10, -8), alu64i(ADD, 1, 1), callLocal(5), stx(DW, 10, 0, -8),
            alu64i(SUB, 6, 1), jmpi(JNE, 6, 0, -6), ldx(DW, 0, 10, -8), exit(),
            /* 10 */ movr(3, 10), alu64i(ADD, 3, -8), stx(DW, 3, 1, 0), ldx(DW, 0, 10, -8), exit());

    @Test
    void threadsDoNotShareStacks() throws Exception {
        int threads = 4, runs = 200;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try (Executable e = Runner.load(PROGRAM)) {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long base = 1_000_000L * (t + 1);
                results.add(pool.submit(() -> {
                    start.await();
                    int ok = 0;
                    for (int i = 0; i < runs; i++) {
                        long arg = base + i;
                        if (e.run(RunContext.builder().arg(1, arg).build()) == arg + 2000) ok++;
                    }
                    return ok;
                }));
            }
            start.countDown();
            for (Future<Integer> f : results) assertThat(f.get()).isEqualTo(runs);
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void runningAfterCloseIsAnError() {
        Executable e = Runner.load(prog(mov(0, 1), exit()));
        assertThat(e.run(RunContext.builder().build())).isEqualTo(1);
        e.close();
        assertThatThrownBy(() -> e.run(RunContext.builder().build()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    void closingFromAnotherThreadStopsTheOwnerToo() throws Exception {
        // this thread runs first and owns a machine; another thread closes the executable
        Executable e = Runner.load(PROGRAM);
        assertThat(e.run(RunContext.builder().arg(1, 5).build())).isEqualTo(2005);
        Thread closer = new Thread(e::close);
        closer.start();
        closer.join();
        assertThatThrownBy(() -> e.run(RunContext.builder().build()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        e.close(); // idempotent, and now frees this thread's machine
    }

    @Test
    void theOwnersMachineIsReusedAndClean() {
        // the same thread runs many times: every run sees its own zeroed frame and fresh registers
        try (Executable e = Runner.load(prog(ldx(DW, 0, 10, -8), stx(DW, 10, 1, -8), exit()))) {
            for (int i = 1; i <= 3; i++) assertThat(e.run(RunContext.builder().arg(1, i).build())).isZero();
        }
    }
}
