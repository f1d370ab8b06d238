package dev.bpf4j.maps;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Little-endian key/value builders for map tests. */
final class Bytes {
    private Bytes() {}

    static byte[] u32(int v) { return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v).array(); }

    static byte[] u64(long v) { return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array(); }

    static long u64(byte[] b, int off) { return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong(off); }

    static int u32(byte[] b) { return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getInt(0); }

    /** The errno of a BpfMapException thrown by {@code r}, or 0 when it does not throw. */
    static int errno(Runnable r) {
        try {
            r.run();
            return 0;
        } catch (BpfMapException e) {
            return e.errno();
        }
    }
}
