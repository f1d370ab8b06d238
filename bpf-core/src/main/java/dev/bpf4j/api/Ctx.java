package dev.bpf4j.api;

/** A caller's {@code ctx_in}: a prefix of a UAPI struct, read as little-endian fields (missing bytes are 0). */
final class Ctx {
    private final byte[] bytes;

    Ctx(String program, String struct, byte[] ctxIn, int structSize) {
        if (ctxIn.length > structSize) {
            throw new IllegalArgumentException(program + ": ctx_in is " + ctxIn.length + " bytes, struct " + struct
                    + " has " + structSize);
        }
        bytes = java.util.Arrays.copyOf(ctxIn, structSize);
    }

    long u32(int off) {
        return (bytes[off] & 0xffL) | (bytes[off + 1] & 0xffL) << 8 | (bytes[off + 2] & 0xffL) << 16 | (bytes[off + 3] & 0xffL) << 24;
    }

    long u64(int off) { return u32(off) | u32(off + 4) << 32; }

    /** True when bytes [from, to) are all zero. */
    boolean zero(int from, int to) {
        for (int i = from; i < to; i++) if (bytes[i] != 0) return false;
        return true;
    }

    byte[] bytes() { return bytes.clone(); }
}
