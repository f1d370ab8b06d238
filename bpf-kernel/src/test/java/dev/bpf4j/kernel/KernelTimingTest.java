package dev.bpf4j.kernel;

import dev.bpf4j.asm.Assembler;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link KernelExecutable#time}: the same r0 as a plain run, and the kernel's own average time per run. */
class KernelTimingTest {
    @BeforeEach void needsBpf() { KernelAssumptions.assumeBpf(); }

    @Test void aTimedRunReturnsThePlainRunsR0AndAnAverageDuration() {
        // sums 256 bytes of read-only memory
        Program p = Assembler.assembleProgram("sum256", """
                mov r0, 0
                mov r3, 0
                loop:
                mov r4, r1
                add r4, r3
                ldxb r5, [r4]
                add r0, r5
                add r3, 1
                jlt r3, r2, loop
                exit""");
        long mem = NativeMemory.allocate(256);
        try (KernelExecutable exe = new KernelEngine().load(p, LoadOptions.defaults().withEntryArgs(2))) {
            for (int i = 0; i < 256; i++) NativeMemory.putByte(mem + i, (byte) i);
            RunContext ctx = RunContext.builder().arg(1, mem).arg(2, 256).region(new MemoryRegion("data", mem, 256, false)).build();
            long r0 = exe.run(ctx);
            assertThat(r0).isEqualTo(255L * 256 / 2);
            KernelTiming t = exe.time(ctx, 1000);
            assertThat(t.r0()).isEqualTo(r0);
            assertThat(t.averageNs()).isPositive().isLessThan(1_000_000);
            assertThatThrownBy(() -> exe.time(ctx, 0)).isInstanceOf(IllegalArgumentException.class);
        } finally {
            NativeMemory.free(mem);
        }
    }
}
