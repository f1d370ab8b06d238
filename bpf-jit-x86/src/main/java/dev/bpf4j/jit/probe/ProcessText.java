package dev.bpf4j.jit.probe;

import java.io.IOException;
import java.io.RandomAccessFile;

/**
 * Reads and writes this process's memory through {@code /proc/self/mem}. Reads of unmapped
 * addresses fail with an exception instead of crashing the JVM; writes reach read-execute text
 * pages without an {@code mprotect}, so the page stays {@code r-x} for other threads (it becomes a
 * private copy, as with any patch).
 */
final class ProcessText {
    private ProcessText() {}

    private static final String MEM = "/proc/self/mem";

    /** {@code length} bytes at {@code address}; an unreadable address throws {@link IllegalArgumentException}. */
    static byte[] read(long address, int length) {
        byte[] out = new byte[length];
        try (RandomAccessFile f = new RandomAccessFile(MEM, "r")) {
            f.seek(address);
            f.readFully(out);
            return out;
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException(String.format("cannot read %d bytes at 0x%x: %s", length, address, e), e);
        }
    }

    /**
     * Writes {@code bytes} at {@code address}. The write is widened to the aligned 8-byte words it
     * touches, so a patch inside one word lands with a single store: another thread fetching
     * those bytes sees the old or the new instruction, never a mix.
     */
    static void write(long address, byte[] bytes) {
        long start = address & ~7L;
        long end = (address + bytes.length + 7) & ~7L;
        byte[] words = read(start, (int) (end - start));
        System.arraycopy(bytes, 0, words, (int) (address - start), bytes.length);
        try (RandomAccessFile f = new RandomAccessFile(MEM, "rw")) {
            f.seek(start);
            f.write(words);
        } catch (IOException e) {
            throw new IllegalStateException(String.format("cannot write %d bytes at 0x%x through %s: %s", bytes.length, address, MEM, e), e);
        }
    }
}
