package dev.bpf4j.jit;

import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs a program in the data-buffer convention (entry r1 = data, r2 = len) over a 64-byte region
 * inside a larger allocation, on both engines, over several (data, len) pairs, including ones the
 * JIT's entry guard must refuse (len past the region, data before it): the same r0 or the same
 * error kind, pc and address, and the same memory. Close it to free the allocation.
 */
final class RegionRuns implements AutoCloseable {
    static final int PAD = 16, BUF = 64, TOTAL = BUF + 2 * PAD;
    static final LoadOptions OPTIONS = LoadOptions.defaults().withEntryArgs(2);

    /** (offset of data from the region start, len): fitting the region, and not. */
    private static final long[][] CONTEXTS = {
        {0, 0}, {0, 1}, {0, 13}, {0, 14}, {0, 15}, {0, 20}, {0, 34}, {0, 63}, {0, 64},
        {8, 56}, {8, 57}, {0, 65}, {0, 200}, {-4, 20}, {-4, 0}, {60, 4}, {60, 14}, {51, 13}, {50, 14}, {30, 34}};

    private final long mem = NativeMemory.allocate(TOTAL);

    @Override public void close() { NativeMemory.free(mem); }

    /** One run: r0 or kind@pc and the address relative to the region, then the whole allocation. */
    private String outcome(Engine engine, Program p, long dataOff, long len, boolean writable) {
        byte[] init = new byte[TOTAL];
        for (int i = 0; i < TOTAL; i++) init[i] = (byte) (i * 37 + 11);
        init[PAD] = 0x45; // an IPv4-like first byte: ihl 5
        NativeMemory.write(mem, init, 0, TOTAL);
        long base = mem + PAD;
        RunContext ctx = RunContext.builder().arg(1, base + dataOff).arg(2, len)
                .region(new MemoryRegion("data", base, BUF, writable)).build();
        try (Executable x = engine.load(p, OPTIONS)) {
            return outcome(x, ctx, base, mem, TOTAL);
        }
    }

    /** r0 or kind@pc and the address relative to {@code base}, then the bytes of {@code [mem, mem + total)}. */
    static String outcome(Executable x, RunContext ctx, long base, long mem, int total) {
        StringBuilder s = new StringBuilder();
        try {
            long r0 = x.run(ctx);
            s.append("r0=").append(Long.toHexString(r0));
        } catch (BpfRuntimeException e) {
            s.append(e.kind()).append('@').append(e.pc()).append(" addr=base+").append(e.address() - base);
        }
        s.append(" mem=");
        for (byte b : NativeMemory.read(mem, total)) s.append(String.format("%02x", b & 0xff));
        return s.toString();
    }

    /** Runs every context on both engines; returns the outcomes (interpreter's) in context order. */
    List<String> same(Program p, boolean writable) {
        List<String> out = new ArrayList<>();
        for (long[] c : CONTEXTS) {
            String want = outcome(Both.INTERP, p, c[0], c[1], writable);
            String got = outcome(Jit.ENGINE, p, c[0], c[1], writable);
            assertThat(got).as("%s with data = region + %d, len %d", p.name(), c[0], c[1]).isEqualTo(want);
            out.add(want.substring(0, want.indexOf(" mem=")));
        }
        return out;
    }

    List<String> same(Program p) { return same(p, false); }
}
