package dev.bpf4j.jit;

import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.jit.I.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Loads and stores of every size and mode; the memory checks and their errors (kind, pc, address). */
class MemoryTest {
    private long mem, mem2;

    @BeforeEach void alloc() {
        mem = NativeMemory.allocate(64);
        mem2 = NativeMemory.allocate(64);
        for (int i = 0; i < 64; i++) NativeMemory.putByte(mem + i, (byte) (0x80 + i));
    }

    @AfterEach void free() { NativeMemory.free(mem); NativeMemory.free(mem2); }

    private RunContext ctx(boolean writable) {
        return RunContext.builder().arg(1, mem).region(new MemoryRegion("m", mem, 64, writable)).build();
    }

    private static BpfRuntimeException error(Program p, RunContext c) {
        try {
            Jit.run(p, LoadOptions.defaults(), c);
        } catch (BpfRuntimeException e) {
            return e;
        }
        throw new AssertionError("no error");
    }

    @Test
    void loadsOfEverySizeAndSign() {
        long q = NativeMemory.getLong(mem + 8);
        int[] sizes = {B, H, W, DW};
        long[] zx = {q & 0xff, q & 0xffff, q & 0xffffffffL, q};
        long[] sx = {(byte) q, (short) q, (int) q};
        for (int i = 0; i < 4; i++) {
            assertThat(Jit.run(prog("ld", ldx(sizes[i], 0, 1, 8), exit()), LoadOptions.defaults(), ctx(false))).isEqualTo(zx[i]);
            if (i < 3) {
                assertThat(Jit.run(prog("ldsx", ldxsx(sizes[i], 0, 1, 8), exit()), LoadOptions.defaults(), ctx(false))).isEqualTo(sx[i]);
            }
        }
    }

    @Test
    void storesOfEverySize() {
        Program p = prog("st", lddw(2, 0x1122334455667788L),
                stx(B, 1, 2, 0), stx(H, 1, 2, 8), stx(W, 1, 2, 16), stx(DW, 1, 2, 24),
                st(B, 1, 32, -2), st(H, 1, 40, -3), st(W, 1, 48, -4), st(DW, 1, 56, -5),
                mov64(0, 0), exit());
        for (int i = 0; i < 64; i += 8) NativeMemory.putLong(mem + i, -1L);
        Jit.run(p, LoadOptions.defaults(), ctx(true));
        assertThat(NativeMemory.getLong(mem)).isEqualTo(0xffffffffffffff88L);
        assertThat(NativeMemory.getLong(mem + 8)).isEqualTo(0xffffffffffff7788L);
        assertThat(NativeMemory.getLong(mem + 16)).isEqualTo(0xffffffff55667788L);
        assertThat(NativeMemory.getLong(mem + 24)).isEqualTo(0x1122334455667788L);
        assertThat(NativeMemory.getLong(mem + 32)).isEqualTo(0xfffffffffffffffeL);
        assertThat(NativeMemory.getLong(mem + 40)).isEqualTo(0xfffffffffffffffdL);
        assertThat(NativeMemory.getLong(mem + 48)).isEqualTo(0xfffffffffffffffcL);
        assertThat(NativeMemory.getLong(mem + 56)).isEqualTo(-5L);
    }

    @Test
    void stackThroughR10AndThroughACopy() {
        // Unchecked r10 access, then the same slot through r2 = r10 (checked against the live frame).
        Program p = prog("stk", st(DW, 10, -8, 41), mov64r(2, 10), ldx(DW, 0, 2, -8), alu64(ADD, 0, 1),
                stx(DW, 2, 0, -512), ldx(DW, 0, 10, -512), exit());
        assertThat(Jit.run(p)).isEqualTo(42);
    }

    @Test
    void regionEdgesAndSecondRegion() {
        RunContext c = RunContext.builder().arg(1, mem)
                .region(new MemoryRegion("small", mem2, 3, false))
                .region(new MemoryRegion("m", mem, 64, true)).build();
        NativeMemory.putByte(mem2 + 2, (byte) 9);
        // Last byte of the big region, last byte of a 3-byte region (slow path), then a region switch.
        Program ok = prog("edge", ldx(B, 0, 1, 63), lddw(3, mem2), ldx(B, 4, 3, 2), alu64r(ADD, 0, 4),
                ldx(H, 4, 3, 1), alu64r(ADD, 0, 4), exit());
        long expect = (NativeMemory.getByte(mem + 63) & 0xff) + 9 + (NativeMemory.getShort(mem2 + 1) & 0xffff);
        assertThat(Jit.run(ok, LoadOptions.defaults(), c)).isEqualTo(expect);
        BpfRuntimeException e = error(prog("over", ldx(H, 0, 1, 63), exit()), c);
        assertThat(e.kind()).isEqualTo(ErrorKind.OUT_OF_BOUNDS);
        assertThat(e.pc()).isEqualTo(0);
        assertThat(e.address()).isEqualTo(mem + 63);
        e = error(prog("over2", lddw(3, mem2), ldx(W, 0, 3, 0), exit()), c);
        assertThat(e.pc()).isEqualTo(2);
        assertThat(e.address()).isEqualTo(mem2);
    }

    @Test
    void wildPointerAndWrapAround() {
        BpfRuntimeException e = error(prog("wild", mov64(2, 0x1000), ldx(DW, 0, 2, 0), exit()), ctx(true));
        assertThat(e.kind()).isEqualTo(ErrorKind.OUT_OF_BOUNDS);
        assertThat(e.pc()).isEqualTo(1);
        assertThat(e.address()).isEqualTo(0x1000);
        e = error(prog("wrap", mov64(2, -4), ldx(DW, 0, 2, 0), exit()), ctx(true));
        assertThat(e.address()).isEqualTo(-4);
        e = error(prog("null", mov64(2, 0), st(W, 2, 16, 1), mov64(0, 0), exit()), ctx(true));
        assertThat(e.pc()).isEqualTo(1);
        assertThat(e.address()).isEqualTo(16);
        assertThat(e.getMessage()).contains("write");
    }

    @Test
    void writeToReadOnlyRegionLeavesMemoryUnchanged() {
        long before = NativeMemory.getLong(mem);
        BpfRuntimeException e = error(prog("ro", mov64(0, 1), stx(DW, 1, 0, 0), exit()), ctx(false));
        assertThat(e.kind()).isEqualTo(ErrorKind.OUT_OF_BOUNDS);
        assertThat(e.pc()).isEqualTo(1);
        assertThat(e.address()).isEqualTo(mem);
        assertThat(NativeMemory.getLong(mem)).isEqualTo(before);
        e = error(prog("ro-atomic", mov64(0, 1), atomic(DW, 1, 0, 8, ADD), exit()), ctx(false));
        assertThat(e.pc()).isEqualTo(1);
        assertThat(e.address()).isEqualTo(mem + 8);
    }

    @Test
    void belowTheFrameIsOutOfBounds() {
        BpfRuntimeException e = error(prog("below", mov64r(2, 10), ldx(DW, 0, 2, -520), exit()), ctx(true));
        assertThat(e.kind()).isEqualTo(ErrorKind.OUT_OF_BOUNDS);
        assertThat(e.pc()).isEqualTo(1);
        // Straddling the frame's top: [r10 - 4, r10 + 4).
        e = error(prog("top", mov64r(2, 10), ldx(DW, 0, 2, -4), exit()), ctx(true));
        assertThat(e.pc()).isEqualTo(1);
    }
}
