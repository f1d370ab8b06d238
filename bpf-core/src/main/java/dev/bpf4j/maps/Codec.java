package dev.bpf4j.maps;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Encodes typed keys and values to the little-endian bytes a map stores. */
public interface Codec<T> {
    /** Encoded size in bytes. */
    int size();

    byte[] encode(T value);

    T decode(byte[] bytes, int offset);

    Codec<Integer> U32 = new Codec<>() {
        @Override public int size() { return 4; }
        @Override public byte[] encode(Integer v) { return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v).array(); }
        @Override public Integer decode(byte[] b, int off) { return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getInt(off); }
    };

    Codec<Long> U64 = new Codec<>() {
        @Override public int size() { return 8; }
        @Override public byte[] encode(Long v) { return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array(); }
        @Override public Long decode(byte[] b, int off) { return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong(off); }
    };

    /** Raw bytes of a fixed size. */
    static Codec<byte[]> bytes(int size) {
        return new Codec<>() {
            @Override public int size() { return size; }
            @Override public byte[] encode(byte[] v) {
                if (v.length != size) throw new IllegalArgumentException("expected " + size + " bytes, got " + v.length);
                return v.clone();
            }
            @Override public byte[] decode(byte[] b, int off) { return java.util.Arrays.copyOfRange(b, off, off + size); }
        };
    }
}
