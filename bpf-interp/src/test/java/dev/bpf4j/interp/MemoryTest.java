package dev.bpf4j.interp;

import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static dev.bpf4j.interp.Asm.*;
import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;

/** LDX / ST / STX / MEMSX on the stack and on regions, and every out-of-bounds rule. */
class MemoryTest {
    static final int LEN = 16;
    long mem;

    @BeforeEach void allocate() {
        mem = NativeMemory.allocate(LEN);
        NativeMemory.putLong(mem, 0x1122_3344_5566_7788L);
        NativeMemory.putLong(mem + 8, 0x8090_a0b0_c0d0_e0f0L);
    }

    @AfterEach void free() { NativeMemory.free(mem); }

    RunContext ctx(boolean writable) {
        return RunContext.builder().arg(1, mem).region(new MemoryRegion("ctx", mem, LEN, writable)).build();
    }

    @Test
    void stackStoreAndLoadEverySize() {
        Object[] prefix = {lddw(1, 0x1122_3344_5566_7788L), stx(DW, 10, 1, -8)};
        assertThat(Runner.run(prog(prefix, ldx(B, 0, 10, -8), exit()))).isEqualTo(0x88L);
        assertThat(Runner.run(prog(prefix, ldx(H, 0, 10, -8), exit()))).isEqualTo(0x7788L);
        assertThat(Runner.run(prog(prefix, ldx(W, 0, 10, -8), exit()))).isEqualTo(0x5566_7788L);
        assertThat(Runner.run(prog(prefix, ldx(DW, 0, 10, -8), exit()))).isEqualTo(0x1122_3344_5566_7788L);
        assertThat(Runner.run(prog(prefix, ldx(B, 0, 10, -1), exit()))).isEqualTo(0x11L);
        assertThat(Runner.run(prog(st(DW, 10, -512, -1), ldx(DW, 0, 10, -512), exit()))).isEqualTo(-1L);
        assertThat(Runner.run(prog(st(DW, 10, -8, 0), st(W, 10, -8, -1), ldx(DW, 0, 10, -8), exit()))).isEqualTo(0xffff_ffffL);
        assertThat(Runner.run(prog(st(DW, 10, -8, 0), st(H, 10, -6, 0x1234), st(B, 10, -8, 0x56), ldx(DW, 0, 10, -8), exit())))
                .isEqualTo(0x1234_0056L);
        assertThat(Runner.run(prog(st(DW, 10, -8, 0), mov(1, -1), stx(B, 10, 1, -8), stx(H, 10, 1, -4), stx(W, 10, 1, -16),
                ldx(DW, 0, 10, -8), exit()))).isEqualTo(0x0000_ffff_0000_00ffL);
    }

    @Test
    void stackThroughAnotherRegisterIsCheckedAndAllowed() {
        assertThat(Runner.run(prog(movr(1, 10), alu64i(ADD, 1, -16), st(DW, 1, 0, 42), ldx(DW, 0, 10, -16), exit())))
                .isEqualTo(42);
    }

    @Test
    void regionLoadsEverySize() {
        assertThat(Runner.run(prog(ldx(B, 0, 1, 0), exit()), ctx(false))).isEqualTo(0x88L);
        assertThat(Runner.run(prog(ldx(H, 0, 1, 2), exit()), ctx(false))).isEqualTo(0x5566L);
        assertThat(Runner.run(prog(ldx(W, 0, 1, 12), exit()), ctx(false))).isEqualTo(0x8090_a0b0L);
        assertThat(Runner.run(prog(ldx(DW, 0, 1, 8), exit()), ctx(false))).isEqualTo(0x8090_a0b0_c0d0_e0f0L);
    }

    @Test
    void signExtendingLoads() {
        assertThat(Runner.run(prog(ldxsx(B, 0, 1, 15), exit()), ctx(false))).isEqualTo((long) (byte) 0x80);
        assertThat(Runner.run(prog(ldxsx(H, 0, 1, 14), exit()), ctx(false))).isEqualTo((long) (short) 0x8090);
        assertThat(Runner.run(prog(ldxsx(W, 0, 1, 12), exit()), ctx(false))).isEqualTo((long) 0x8090_a0b0);
        assertThat(Runner.run(prog(ldxsx(B, 0, 1, 0), exit()), ctx(false))).isEqualTo(0xffff_ffff_ffff_ff88L);
        assertThat(Runner.run(prog(ldxsx(W, 0, 1, 0), exit()), ctx(false))).isEqualTo(0x5566_7788L);
        assertThat(Runner.run(prog(st(W, 10, -4, -2), movr(1, 10), ldxsx(W, 0, 1, -4), exit()))).isEqualTo(-2L);
    }

    @Test
    void regionStoresEverySize() {
        Runner.run(prog(st(B, 1, 0, 0x01), st(H, 1, 2, 0x0302), mov(2, 0x07060504), stx(W, 1, 2, 4),
                lddw(3, 0x0f0e_0d0c_0b0a_0908L), stx(DW, 1, 3, 8), mov(0, 0), exit()), ctx(true));
        assertThat(NativeMemory.getLong(mem)).isEqualTo(0x0706_0504_0302_7701L);
        assertThat(NativeMemory.getLong(mem + 8)).isEqualTo(0x0f0e_0d0c_0b0a_0908L);
    }

    @Test
    void readPastTheRegionEnd() {
        Errors.outOfBounds(0, mem + 12, () -> Runner.run(prog(ldx(DW, 0, 1, 12), exit()), ctx(false)));
        Errors.outOfBounds(0, mem - 1, () -> Runner.run(prog(ldx(B, 0, 1, -1), exit()), ctx(false)));
        Errors.outOfBounds(1, mem + 16, () -> Runner.run(prog(mov(0, 0), ldx(B, 0, 1, 16), exit()), ctx(false)));
    }

    @Test
    void writePartlyPastTheEndTouchesNothing() {
        Errors.outOfBounds(1, mem + 12, () -> Runner.run(prog(mov(2, -1), stx(DW, 1, 2, 12), exit()), ctx(true)));
        assertThat(NativeMemory.getLong(mem + 8)).isEqualTo(0x8090_a0b0_c0d0_e0f0L);
    }

    @Test
    void writeToReadOnlyRegion() {
        Errors.outOfBounds(0, mem, () -> Runner.run(prog(st(B, 1, 0, 0), exit()), ctx(false)));
        Errors.outOfBounds(1, mem + 8, () -> Runner.run(prog(mov(2, 1), atomic(DW, 1, 2, 8, ADD), exit()), ctx(false)));
        assertThat(NativeMemory.getLong(mem)).isEqualTo(0x1122_3344_5566_7788L);
        assertThat(NativeMemory.getLong(mem + 8)).isEqualTo(0x8090_a0b0_c0d0_e0f0L);
    }

    @Test
    void noRegionsMeansNoMemoryBesidesTheStack() {
        Errors.outOfBounds(0, mem, () -> Runner.run(prog(ldx(B, 0, 1, 0), exit()), RunContext.builder().arg(1, mem).build()));
    }

    @Test
    void wrapAroundIsOutOfBounds() {
        Errors.outOfBounds(1, -4L, () -> Runner.run(prog(mov(1, -4), ldx(DW, 0, 1, 0), exit()), ctx(false)));
        // a region reaching the top of the address space cannot be crossed by wrapping either
        Errors.outOfBounds(1, -1L, () -> Runner.run(prog(mov(1, -1), ldx(H, 0, 1, 0), exit()),
                RunContext.builder().region(new MemoryRegion("top", -16, 15, false)).build()));
    }
}
