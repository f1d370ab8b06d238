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

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.jit.I.*;
import static org.assertj.core.api.Assertions.assertThat;

/** One executable run concurrently: each run has its own env, regions, budget, helper state and errors. */
class ThreadsTest {
    @Test
    void concurrentRunsKeepTheirOwnState() throws Exception {
        HelperRegistry h = HelperRegistry.builder().add(1, "twice", (call, a, b, c, d, e) -> {
            if (a < 0) throw call.badArgument("negative");
            return 2 * a;
        }).build();
        // r0 = helper(*(u64 *)r1) + loop of r2 iterations; writes the result back to *r1.
        Program p = prog("mt", mov64r(6, 1), mov64r(7, 2), ldx(DW, 1, 6, 0), call(1),
                alu64(ADD, 0, 1), alu64(SUB, 7, 1), jmp(JSGT, 7, 0, -3), stx(DW, 6, 0, 0), exit());
        try (JitExecutable x = Jit.LOADER.load(p, LoadOptions.defaults().withHelpers(h).withEntryArgs(2))) {
            ExecutorService pool = Executors.newFixedThreadPool(6);
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < 6; t++) {
                final int id = t;
                fs.add(pool.submit(() -> {
                    long mem = NativeMemory.allocate(8);
                    try {
                        for (int i = 0; i < 2000; i++) {
                            long v = id * 1000 + i;
                            NativeMemory.putLong(mem, (i % 7 == 0) ? -1 : v);
                            RunContext ctx = RunContext.builder().arg(1, mem).arg(2, i % 5 + 1)
                                    .region(new MemoryRegion("m", mem, 8, true)).budget(i % 11 == 0 ? 1 : 100).build();
                            try {
                                long r = x.run(ctx);
                                assertThat(i % 7).isNotZero();
                                assertThat(i % 11 == 0 && i % 5 + 1 > 2).isFalse();
                                assertThat(r).isEqualTo(2 * v + i % 5 + 1);
                                assertThat(NativeMemory.getLong(mem)).isEqualTo(r);
                            } catch (BpfRuntimeException e) {
                                if (i % 7 == 0) {
                                    assertThat(e.kind()).isEqualTo(ErrorKind.BAD_HELPER_ARGUMENT);
                                    assertThat(e.pc()).isEqualTo(3);
                                } else {
                                    assertThat(e.kind()).isEqualTo(ErrorKind.BUDGET_EXCEEDED);
                                    assertThat(e.pc()).isEqualTo(6);
                                }
                            }
                        }
                    } finally {
                        NativeMemory.free(mem);
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) f.get();
            pool.shutdown();
        }
    }
}
