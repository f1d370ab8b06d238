package dev.bpf4j.jit.x86;

import java.util.Arrays;

/** A growable little-endian byte buffer that machine code is written into. */
public final class CodeBuffer {
    private byte[] bytes = new byte[256];
    private int size;

    public int size() { return size; }

    public void emit8(int b) {
        if (size == bytes.length) bytes = Arrays.copyOf(bytes, bytes.length * 2);
        bytes[size++] = (byte) b;
    }

    public void emit16(int v) { emit8(v); emit8(v >> 8); }

    public void emit32(int v) { emit8(v); emit8(v >> 8); emit8(v >> 16); emit8(v >> 24); }

    public void emit64(long v) { emit32((int) v); emit32((int) (v >> 32)); }

    /** Overwrites the byte at {@code pos} (used to patch a forward rel8). */
    public void patch8(int pos, int b) {
        if (pos < 0 || pos >= size) throw new IndexOutOfBoundsException(pos);
        bytes[pos] = (byte) b;
    }

    public void patch32(int pos, int v) {
        for (int i = 0; i < 4; i++) patch8(pos + i, v >> (8 * i));
    }

    public byte byteAt(int pos) { return bytes[pos]; }

    public byte[] toByteArray() { return Arrays.copyOf(bytes, size); }

    public void reset() { size = 0; }
}
