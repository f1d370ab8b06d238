package dev.bpf4j.jit;

import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.PacketContext;
import dev.bpf4j.runtime.RunContext;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs a kernel-style XDP program (entry r1 = a {@code struct xdp_md} whose u32 data/data_end hold
 * real addresses) on both engines over several contexts: the packet fitting its 64-byte region and
 * not, data after data_end, a ctx region too short for data_end, and a ctx lying inside the writable
 * packet (so stores can change its fields). Compares r0 or error kind, pc and address (relative to
 * the packet region), and the whole memory. Close it to unmap the memory.
 */
final class CtxRuns implements AutoCloseable {
    static final int CTX = 0, CTX_SIZE = 24, PKT = 128, BUF = 64, TOTAL = 256;
    static final LoadOptions OPTIONS = LoadOptions.defaults().withPacketContext(PacketContext.XDP_MD);

    /** A context: data's offset from the packet region, len (data_end - data), the ctx region's size, ctx inside the packet. */
    record Shape(long dataOff, long len, int ctxSize, boolean ctxInPacket) {
        @Override public String toString() { return "data=pkt+" + dataOff + " len=" + len + " ctx=" + ctxSize + (ctxInPacket ? " in packet" : ""); }
    }

    /** Fitting the packet region, and not; then the shapes only the ctx form has. */
    static final List<Shape> SHAPES = shapes();

    private static List<Shape> shapes() {
        List<Shape> s = new ArrayList<>();
        long[][] fit = {{0, 0}, {0, 1}, {0, 13}, {0, 14}, {0, 15}, {0, 20}, {0, 34}, {0, 63}, {0, 64},
            {8, 56}, {8, 57}, {0, 65}, {0, 200}, {-4, 20}, {60, 4}, {60, 14}, {51, 13}, {50, 14}, {30, 34}};
        for (long[] f : fit) s.add(new Shape(f[0], f[1], CTX_SIZE, false));
        s.add(new Shape(20, -4, CTX_SIZE, false));  // data after data_end: the guard refuses
        s.add(new Shape(60, -4, CTX_SIZE, false));  // ... and data_end - data, a huge length, would pass a length test
        s.add(new Shape(0, 64, 6, false));          // data_end outside the ctx region: the guard refuses, the load fails
        s.add(new Shape(0, 64, 8, false));          // just data and data_end: reading ingress_ifindex fails
        s.add(new Shape(0, 64, 0, true));           // the ctx's fields at packet + 40..47, writable
        return s;
    }

    private final LowBuffer low = new LowBuffer();

    @Override public void close() { low.close(); }

    /** One run: r0 or kind@pc and the address relative to the packet region, then the whole buffer. */
    String outcome(Engine engine, Program p, Shape c, boolean writable, LoadOptions options) {
        try (Executable x = engine.load(p, options)) {
            return outcome(x, c, writable);
        }
    }

    /** As above with a loaded program. */
    String outcome(Executable x, Shape c, boolean writable) {
        long mem = low.address, base = mem + PKT;
        byte[] init = new byte[TOTAL];
        for (int i = 0; i < TOTAL; i++) init[i] = (byte) (i * 37 + 11);
        init[PKT] = 0x45;
        NativeMemory.write(mem, init, 0, TOTAL);
        long ctx = c.ctxInPacket() ? base + 40 : mem + CTX;
        NativeMemory.putInt(ctx, (int) (base + c.dataOff()));
        NativeMemory.putInt(ctx + 4, (int) (base + c.dataOff() + c.len()));
        RunContext.Builder b = RunContext.builder().arg(1, ctx).region(new MemoryRegion("packet", base, BUF, writable || c.ctxInPacket()));
        if (!c.ctxInPacket()) b.region(new MemoryRegion("xdp_md", ctx, c.ctxSize(), false));
        return RegionRuns.outcome(x, b.budget(1000).build(), base, mem, TOTAL);
    }

    /** Runs every shape on both engines; returns the outcomes (interpreter's, without memory) in shape order. */
    List<String> same(Program p, boolean writable, LoadOptions options) {
        List<String> out = new ArrayList<>();
        for (Shape c : SHAPES) {
            String want = outcome(Both.INTERP, p, c, writable, options);
            String got = outcome(Jit.ENGINE, p, c, writable, options);
            assertThat(got).as("%s with %s", p.name(), c).isEqualTo(want);
            out.add(want.substring(0, want.indexOf(" mem=")));
        }
        return out;
    }

    List<String> same(Program p, boolean writable) { return same(p, writable, OPTIONS); }

    List<String> same(Program p) { return same(p, false); }
}
