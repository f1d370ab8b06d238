package dev.bpf4j.unwind.perf;

import dev.bpf4j.unwind.CodeMapListener;
import dev.bpf4j.unwind.CodeRegion;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Appends one {@code START SIZE name} line per registered code region to a perf map
 * ({@code /tmp/perf-<pid>.map}), the file {@code perf report} and {@code perf script} read to
 * name addresses in anonymous executable memory. START and SIZE are hex without {@code 0x}, as
 * perf parses them. Perf maps have no removal: a region's line stays after it is unmapped.
 */
public final class PerfMapWriter implements CodeMapListener, Closeable {
    private final Path file;
    private final FileChannel channel;

    /** Opens {@code file} for appending, creating it when absent. */
    public PerfMapWriter(Path file) {
        this.file = file;
        try {
            this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open perf map " + file + ": " + e.getMessage(), e);
        }
    }

    /** The file perf looks in for this process: {@code /tmp/perf-<pid>.map}. */
    public static Path defaultPath() { return Path.of("/tmp", "perf-" + ProcessHandle.current().pid() + ".map"); }

    public Path file() { return file; }

    /** The perf-map line for {@code region}, without the newline. */
    public static String line(CodeRegion region) {
        return Long.toHexString(region.start()) + " " + Long.toHexString(region.size()) + " " + region.symbol();
    }

    @Override public void registered(CodeRegion region) { append(line(region) + "\n"); }

    /** One write per line: appends of a few bytes land whole even with other writers. */
    private synchronized void append(String text) {
        ByteBuffer b = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
        try {
            while (b.hasRemaining()) channel.write(b);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write perf map " + file + ": " + e.getMessage(), e);
        }
    }

    @Override public synchronized void close() {
        try {
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close perf map " + file + ": " + e.getMessage(), e);
        }
    }

    @Override public String toString() { return "perf map " + file; }
}
