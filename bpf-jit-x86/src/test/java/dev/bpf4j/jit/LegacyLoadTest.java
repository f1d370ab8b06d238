package dev.bpf4j.jit;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.function.Supplier;

import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** LD ABS/IND on the JIT against the interpreter: every size and mode, in and out of range, in main and in a subprogram. */
class LegacyLoadTest {
    static final int PKT = 13;
    static final LoadOptions LEGACY = LoadOptions.defaults().withLegacyPacketLoads(true);

    final long out = NativeMemory.allocate(16);
    final long pkt = NativeMemory.allocate(PKT);

    @AfterEach
    void free() {
        NativeMemory.free(out);
        NativeMemory.free(pkt);
    }

    void reset() {
        NativeMemory.setMemory(out, 16, (byte) 0x5a);
        for (int i = 0; i < PKT; i++) NativeMemory.putByte(pkt + i, (byte) (0x81 + 7 * i));
    }

    Supplier<RunContext> ctx(boolean withPacket) {
        return () -> {
            RunContext.Builder b = RunContext.builder().arg(1, out).region(new MemoryRegion("out", out, 16, true));
            if (withPacket) b.packet(pkt, PKT);
            return b.build();
        };
    }

    static Insn legacy(int mode, int size, int src, int imm) { return new Insn(LD | mode | size, 0, src, 0, imm); }

    /** r6 = out; r7 = index; r0 = packet load; out[0] = r0; r0 = r0 + 1. */
    static Program inMain(int mode, int size, long index, int imm) {
        return I.prog("ldpkt", I.mov64r(6, 1), I.lddw(7, index), legacy(mode, size, 7, imm),
                I.stx(DW, 6, 0, 0), I.alu64(ADD, 0, 1), I.exit());
    }

    /** The load in a subprogram: out of range it returns 0 to main, which goes on (out[8] = 1000 + r0). */
    static Program inSub(int mode, int size, long index, int imm) {
        return I.prog("ldpkt_sub", I.mov64r(6, 1), I.lddw(7, index), I.callLocal(3),
                I.alu64(ADD, 0, 1000), I.stx(DW, 6, 0, 8), I.exit(),
                legacy(mode, size, 7, imm), I.stx(DW, 6, 0, 0), I.exit());
    }

    void agree(Program p, boolean withPacket) {
        String[] r = Both.compare(p, LEGACY, ctx(withPacket), out, 16, this::reset);
        assertThat(r[1]).as(p.name() + " " + p.insns()).isEqualTo(r[0]);
    }

    @Test
    void everySizeModeAndOffsetAgreesWithTheInterpreter() {
        int[] sizes = {B, H, W};
        long[] indexes = {0, 1, 5, 0x1_0000_0003L, -1, 0x7fff_fff0L};
        for (int size : sizes) {
            for (int off = -2; off <= PKT + 1; off++) {
                agree(inMain(ABS, size, 0, off), true);
                agree(inSub(ABS, size, 0, off), true);
                agree(inMain(ABS, size, 0, off), false);
                for (long index : indexes) {
                    agree(inMain(IND, size, index, off), true);
                    agree(inSub(IND, size, index, off), true);
                }
            }
            agree(inMain(ABS, size, 0, Integer.MIN_VALUE), true);
            agree(inMain(IND, size, Integer.MAX_VALUE, 1), true); // wraps to a negative int offset
        }
    }

    @Test
    void readsBigEndianAndReturnsZeroOutOfRange() {
        reset();
        long w = Jit.run(inMain(ABS, W, 0, 1), LEGACY, ctx(true).get());
        long want = ((0x88L << 24) | (0x8fL << 16) | (0x96L << 8) | 0x9dL) + 1;
        assertThat(w).isEqualTo(want);
        reset();
        assertThat(Jit.run(inMain(ABS, H, 0, PKT - 1), LEGACY, ctx(true).get())).isEqualTo(0);
        assertThat(NativeMemory.getLong(out)).isEqualTo(0x5a5a5a5a5a5a5a5aL); // the store after the load did not run
    }

    @Test
    void refusedWithoutTheLoadOption() {
        assertThatThrownBy(() -> Jit.ENGINE.load(inMain(ABS, B, 0, 0), LoadOptions.defaults()))
                .isInstanceOf(BpfLoadException.class).hasMessageContaining("pc 3").hasMessageContaining("withLegacyPacketLoads");
        assertThatThrownBy(() -> Jit.ENGINE.load(I.prog("dwabs", legacy(ABS, DW, 0, 0), I.exit()), LEGACY))
                .isInstanceOf(BpfLoadException.class).hasMessageContaining("unknown LD opcode");
    }
}
