package dev.bpf4j.interp;

import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import static dev.bpf4j.interp.Asm.*;
import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;

/** A program that has run {@link OwnLoops#AFTER_RUNS} times moves to its own copy of the loop, with the same results and errors. */
class OwnLoopTest {
    /** r0 = sum of r2 = n..1 with a 32-bit xor and a byte load from the region at r1 per round; a back-edge per round. */
    static Program summing(int n) {
        return prog(mov(0, 0), mov(2, n),
                alu64(ADD, 0, 2), alu32i(XOR, 0, 0x55), ldx(B, 3, 1, 0), alu64(ADD, 0, 3),
                alu64i(SUB, 2, 1), jmpi(JNE, 2, 0, -6), exit());
    }

    @Test
    void aHotProgramMovesToItsOwnLoopWithTheSameResults() {
        assertThat(OwnLoops.AFTER_RUNS).isPositive();
        long mem = NativeMemory.allocate(8);
        try (InterpretedExecutable e = (InterpretedExecutable) Runner.load(summing(50))) {
            NativeMemory.putByte(mem, (byte) 7);
            RunContext ctx = RunContext.builder().region(new MemoryRegion("m", mem, 8, false)).arg(1, mem).build();
            long first = e.run(ctx);
            for (int i = 1; i < OwnLoops.AFTER_RUNS - 1; i++) assertThat(e.run(ctx)).isEqualTo(first);
            if (OwnLoops.AFTER_RUNS > 1) assertThat(e.decoded().ownLoop).as("own loop before the threshold").isNull();
            for (int i = 0; i < 50; i++) assertThat(e.run(ctx)).isEqualTo(first);
            assertThat(e.decoded().ownLoop).as("own loop after the threshold").isNotNull();
            // the same error, pc and address from the copy: the read window moves off the region
            RunContext outside = RunContext.builder().region(new MemoryRegion("m", mem, 8, false)).arg(1, mem + 8).build();
            Errors.outOfBounds(4, mem + 8, () -> e.run(outside));
            Errors.expect(ErrorKind.BUDGET_EXCEEDED, 7, () -> e.run(RunContext.builder()
                    .region(new MemoryRegion("m", mem, 8, false)).arg(1, mem).budget(10).build()));
            assertThat(e.run(ctx)).isEqualTo(first);
        } finally {
            NativeMemory.free(mem);
        }
    }

    @Test
    void everyProgramGetsItsOwnCopy() {
        long[] code = new long[1];
        assertThat(OwnLoops.define(code)).isNotSameAs(OwnLoops.define(code));
        assertThat(OwnLoops.define(code).getClass()).isNotEqualTo(HotLoop.class).matches(Class::isHidden);
    }
}
