package dev.bpf4j.interp;

import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static dev.bpf4j.interp.Asm.*;
import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fast path of the memory checks (Machine's read and write windows) must never let through an
 * access the full check would refuse: not after the region or frame it was opened on is gone, not
 * in the next run with other regions, not for a store when only a read was checked.
 */
class MemoryWindowTest {
    long a, b;

    @BeforeEach void allocate() {
        a = NativeMemory.allocate(16);
        b = NativeMemory.allocate(16);
        NativeMemory.putLong(a, 11);
        NativeMemory.putLong(b, 22);
    }

    @AfterEach void free() {
        NativeMemory.free(a);
        NativeMemory.free(b);
    }

    static RunContext over(long address, long region, boolean writable) {
        return RunContext.builder().arg(1, address).region(new MemoryRegion("r", region, 16, writable)).build();
    }

    @Test
    void aWindowDoesNotOutliveItsRunContext() {
        try (Executable e = Runner.load(prog(ldx(DW, 0, 1, 0), ldx(DW, 0, 1, 0), exit()))) {
            assertThat(e.run(over(a, a, false))).isEqualTo(11);
            assertThat(e.run(over(a, a, false))).isEqualTo(11);
            assertThat(e.run(over(b, b, false))).isEqualTo(22);
            // region b only: a was this machine's window two runs ago
            BpfRuntimeException err = Errors.expect(ErrorKind.OUT_OF_BOUNDS, 0, () -> e.run(over(a, b, false)));
            assertThat(err.address()).isEqualTo(a);
        }
    }

    @Test
    void aReadWindowIsNoWriteWindow() {
        // read [r1], then write [r1] in a read-only region
        try (Executable e = Runner.load(prog(ldx(DW, 0, 1, 0), stx(DW, 1, 0, 0), exit()))) {
            Errors.expect(ErrorKind.OUT_OF_BOUNDS, 1, () -> e.run(over(a, a, false)));
            assertThat(e.run(over(a, a, true))).isEqualTo(11);
        }
    }

    @Test
    void theEdgesOfTheWindowAreExact() {
        // after a hit at offset 0, offset 9 with 8 bytes and offset -1 must still fail
        try (Executable e = Runner.load(prog(ldx(DW, 0, 1, 0), ldx(DW, 0, 1, 8), ldx(B, 0, 1, 15), ldx(DW, 0, 1, 9), exit()))) {
            BpfRuntimeException err = Errors.expect(ErrorKind.OUT_OF_BOUNDS, 3, () -> e.run(over(a, a, false)));
            assertThat(err.address()).isEqualTo(a + 9);
        }
        try (Executable e = Runner.load(prog(ldx(DW, 0, 1, 0), ldx(B, 0, 1, -1), exit()))) {
            Errors.expect(ErrorKind.OUT_OF_BOUNDS, 1, () -> e.run(over(a, a, false)));
        }
    }

    @Test
    void aWindowOnACalleesFrameDiesWithTheFrame() {
        // main: call sub; r0 = [r0 - 8]; exit | sub: [r10-8] = 7; r1 = r10; r0 = [r1 - 8] (window on sub's
        // frame); r0 = r1; exit -- main's read through the returned pointer must fail
        Errors.expect(ErrorKind.OUT_OF_BOUNDS, 1, () -> Runner.run(prog(callLocal(2), ldx(DW, 0, 0, -8), exit(),
                st(DW, 10, -8, 7), movr(1, 10), ldx(DW, 0, 1, -8), movr(0, 1), exit())));
        // the same reads without the return work
        assertThat(Runner.run(prog(st(DW, 10, -8, 7), movr(1, 10), ldx(DW, 0, 1, -8), ldx(DW, 2, 1, -8), alu64(ADD, 0, 2), exit())))
                .isEqualTo(14);
    }

    @Test
    void framesReadZeroInEveryRunEvenWhenOnlyPartlyZeroed() {
        // if r1 != 0: [r10-16] = 42; r0 = [r10-16]: the second run must not see the first run's store
        try (Executable e = Runner.load(prog(jmpi(JEQ, 1, 0, 1), st(DW, 10, -16, 42), ldx(DW, 0, 10, -16), exit()))) {
            assertThat(e.run(RunContext.builder().arg(1, 1).build())).isEqualTo(42);
            assertThat(e.run(RunContext.builder().arg(1, 0).build())).isZero();
        }
    }
}
