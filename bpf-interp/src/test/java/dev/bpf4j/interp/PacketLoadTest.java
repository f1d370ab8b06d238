package dev.bpf4j.interp;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.asm.ProgramBuilder;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.verifier.VerifierException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.isa.Reg.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** LD ABS/IND (docs/runtime-semantics.md "Legacy packet loads"). */
class PacketLoadTest {
    static final LoadOptions LEGACY = LoadOptions.defaults().withLegacyPacketLoads(true);
    final long packet = NativeMemory.allocate(8);

    PacketLoadTest() {
        for (int i = 0; i < 8; i++) NativeMemory.putByte(packet + i, (byte) (i + 1)); // 01 02 .. 08
    }

    @AfterEach
    void free() { NativeMemory.free(packet); }

    static Insn abs(int size, int imm) { return new Insn(LD | ABS | size, 0, 0, 0, imm); }

    static Insn ind(int size, int src, int imm) { return new Insn(LD | IND | size, 0, src, 0, imm); }

    /** r6 = ctx; r0 = load; r0 += 1000; exit — an out-of-range load returns 0 instead of continuing. */
    long load(Insn ld, long r7) {
        Program p = new ProgramBuilder().mov64(R6, R1).lddw(R7, r7).insn(ld).add64(R0, 1000).exit().build("test");
        try (Executable e = Bpf.load(p, Runner.ENGINE, LEGACY)) {
            return e.run(RunContext.builder().packet(packet, 8).build());
        }
    }

    long load(Insn ld) { return load(ld, 0); }

    @Test
    void absoluteLoadsAreBigEndianAndZeroExtended() {
        assertThat(load(abs(W, 0))).isEqualTo(0x01020304L + 1000);
        assertThat(load(abs(W, 4))).isEqualTo(0x05060708L + 1000);
        assertThat(load(abs(H, 6))).isEqualTo(0x0708 + 1000);
        assertThat(load(abs(B, 7))).isEqualTo(0x08 + 1000);
        NativeMemory.putByte(packet, (byte) 0xff);
        assertThat(load(abs(W, 0))).isEqualTo(0xff020304L + 1000);
    }

    @Test
    void outOfRangeExitsWithZero() {
        assertThat(load(abs(W, 5))).isZero();
        assertThat(load(abs(H, 7))).isZero();
        assertThat(load(abs(B, 8))).isZero();
        assertThat(load(abs(B, -1))).isZero();
        assertThat(load(abs(W, Integer.MAX_VALUE))).isZero();
    }

    @Test
    void indirectLoadsAddTheRegister() {
        assertThat(load(ind(H, 7, 1), 2)).isEqualTo(0x0405 + 1000);
        assertThat(load(ind(B, 7, 4), -4)).isEqualTo(0x01 + 1000);
        assertThat(load(ind(W, 7, 0), 4)).isEqualTo(0x05060708L + 1000);
        assertThat(load(ind(W, 7, 0), 5)).isZero();
        assertThat(load(ind(B, 7, 0), -1)).isZero();
        // the offset is a 32-bit int, as the kernel passes it to bpf_skb_load_helper_*
        assertThat(load(ind(B, 7, 0), (1L << 32) | 1)).isEqualTo(0x02 + 1000);
    }

    @Test
    void withoutAPacketEveryLoadIsOutOfRange() {
        Program p = new ProgramBuilder().mov64(R6, R1).insn(abs(B, 0)).add64(R0, 1).exit().build("test");
        try (Executable e = Bpf.load(p, Runner.ENGINE, LEGACY)) {
            assertThat(e.run(RunContext.builder().build())).isZero();
        }
    }

    @Test
    void outOfRangeInASubprogramExitsOnlyThatFrame() {
        Program p = new ProgramBuilder()
                .mov64(R6, R1).callLocal("sub").add64(R0, 5).exit()
                .label("sub").mov64(R6, R1).insn(abs(W, 100)).mov64(R0, 77).exit()
                .build("test");
        try (Executable e = Bpf.load(p, Runner.ENGINE, LEGACY)) {
            assertThat(e.run(RunContext.builder().packet(packet, 8).build())).isEqualTo(5);
        }
    }

    @Test
    void needTheLoadOption() {
        Program p = new ProgramBuilder().mov64(R6, R1).insn(abs(B, 0)).exit().build("test");
        assertThatThrownBy(() -> Bpf.load(p, Runner.ENGINE, LoadOptions.defaults())).isInstanceOf(VerifierException.class);
        // the engine's own guard, without the validator
        assertThatThrownBy(() -> Runner.ENGINE.load(p, LoadOptions.defaults())).isInstanceOf(BpfLoadException.class)
                .hasMessageContaining("pc 1").hasMessageContaining("withLegacyPacketLoads");
    }

    @Test
    void packetIsNotARegion() {
        // a plain load from the packet address is out of bounds: only LD ABS/IND read it
        Program p = new ProgramBuilder().lddw(R1, packet).ldxb(R0, R1, 0).exit().build("test");
        try (Executable e = Bpf.load(p, Runner.ENGINE, LEGACY)) {
            Errors.outOfBounds(2, packet, () -> e.run(RunContext.builder().packet(packet, 8).build()));
        }
    }
}
