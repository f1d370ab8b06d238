package dev.bpf4j.api;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;

/**
 * One value for a per-CPU map entry, for comparing runs: the CPUs' values added as little-endian
 * u64 words. Which CPU a run used differs between engines and runs; the sum does not. A value whose
 * size is not a multiple of 8 ends in a short word, padded with zeros to add and cut back after (so
 * its carry is lost, as a u32 counter's would be).
 */
public final class PerCpuValues {
    private PerCpuValues() {}

    /** The word-wise sum of {@code values} (one per CPU, all of the first one's length). */
    public static byte[] sum(List<byte[]> values) {
        int n = values.get(0).length;
        ByteBuffer acc = ByteBuffer.allocate((n + 7) & ~7).order(ByteOrder.LITTLE_ENDIAN);
        for (byte[] v : values) {
            ByteBuffer w = ByteBuffer.wrap(Arrays.copyOf(v, acc.capacity())).order(ByteOrder.LITTLE_ENDIAN);
            for (int off = 0; off < acc.capacity(); off += 8) acc.putLong(off, acc.getLong(off) + w.getLong(off));
        }
        return Arrays.copyOf(acc.array(), n);
    }
}
