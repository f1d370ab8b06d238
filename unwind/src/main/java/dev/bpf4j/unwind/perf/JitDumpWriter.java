package dev.bpf4j.unwind.perf;

import com.kenai.jffi.MemoryIO;
import dev.bpf4j.unwind.CodeMapListener;
import dev.bpf4j.unwind.CodeRegion;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.Function;

/**
 * Writes a jitdump file ({@code tools/perf/Documentation/jitdump-specification.txt}): a 40-byte
 * header, then one {@code JIT_CODE_LOAD} record (with a copy of the machine code) per registered
 * region and {@code JIT_CODE_CLOSE} on {@link #close}. The file is named {@code jit-<pid>.dump} and
 * mapped read+exec once, so {@code perf record -k 1} notes it and {@code perf inject --jit} can
 * turn every load into an ELF image perf annotates. Timestamps are CLOCK_MONOTONIC
 * ({@link System#nanoTime} on Linux). Little-endian, as the host.
 */
public final class JitDumpWriter implements CodeMapListener, Closeable {
    public static final int MAGIC = 0x4A695444;
    public static final int VERSION = 1;
    public static final int HEADER_SIZE = 40;
    /** EM_X86_64. */
    public static final int ELF_MACH_X86_64 = 62;
    public static final int JIT_CODE_LOAD = 0;
    public static final int JIT_CODE_CLOSE = 3;
    /** Record header (id, total_size, timestamp) plus the fixed part of JIT_CODE_LOAD. */
    private static final int LOAD_FIXED = 16 + 40;

    private static final ThreadLocal<Integer> TID = ThreadLocal.withInitial(JitDumpWriter::queryTid);

    private final Path file;
    private final FileChannel channel;
    private final ExecMarker marker;
    private final Function<CodeRegion, byte[]> code;
    private final int pid = (int) ProcessHandle.current().pid();
    private long codeIndex;
    private boolean closed;

    /** Creates {@code dir/jit-<pid>.dump} (replacing a stale one) and maps it; code is read from live memory. */
    public static JitDumpWriter create(Path dir) { return new JitDumpWriter(dir, JitDumpWriter::liveCode); }

    /** As {@link #create}, with the code of each region supplied by {@code code} (tests, snapshots). */
    public JitDumpWriter(Path dir, Function<CodeRegion, byte[]> code) {
        this.code = code;
        this.file = dir.resolve("jit-" + pid + ".dump");
        try {
            Files.createDirectories(dir);
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
            write(header());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create jitdump " + file + ": " + e.getMessage(), e);
        }
        try {
            marker = ExecMarker.map(file, HEADER_SIZE);
        } catch (RuntimeException e) {
            try { channel.close(); } catch (IOException ignored) { /* the mmap failure is the news */ }
            throw e;
        }
    }

    public Path file() { return file; }

    /** The jitdump file this process would write in {@code dir}. */
    public static Path fileIn(Path dir) { return dir.resolve("jit-" + ProcessHandle.current().pid() + ".dump"); }

    private ByteBuffer header() {
        ByteBuffer b = ByteBuffer.allocate(HEADER_SIZE).order(ByteOrder.nativeOrder());
        b.putInt(MAGIC).putInt(VERSION).putInt(HEADER_SIZE).putInt(ELF_MACH_X86_64).putInt(0).putInt(pid)
                .putLong(System.nanoTime()).putLong(0L);
        return b.flip();
    }

    @Override public synchronized void registered(CodeRegion region) {
        if (closed) return;
        byte[] bytes = code.apply(region);
        if (bytes.length != region.size()) {
            throw new IllegalArgumentException("jitdump: " + region.symbol() + " has " + region.size() + " bytes but " + bytes.length + " were supplied");
        }
        byte[] name = region.symbol().getBytes(StandardCharsets.UTF_8);
        int total = LOAD_FIXED + name.length + 1 + bytes.length;
        ByteBuffer b = ByteBuffer.allocate(total).order(ByteOrder.nativeOrder());
        b.putInt(JIT_CODE_LOAD).putInt(total).putLong(System.nanoTime());
        b.putInt(pid).putInt(TID.get()).putLong(region.start()).putLong(region.start()).putLong(region.size()).putLong(codeIndex++);
        b.put(name).put((byte) 0).put(bytes);
        write(b.flip());
    }

    /** Writes JIT_CODE_CLOSE, unmaps and closes; later registrations are ignored. */
    @Override public synchronized void close() {
        if (closed) return;
        closed = true;
        try {
            ByteBuffer b = ByteBuffer.allocate(16).order(ByteOrder.nativeOrder());
            b.putInt(JIT_CODE_CLOSE).putInt(16).putLong(System.nanoTime());
            write(b.flip());
        } finally {
            marker.close();
            try {
                channel.close();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot close jitdump " + file + ": " + e.getMessage(), e);
            }
        }
    }

    private void write(ByteBuffer b) {
        try {
            while (b.hasRemaining()) channel.write(b);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write jitdump " + file + ": " + e.getMessage(), e);
        }
    }

    /** Code registered with the map is mapped and readable until it is unregistered. */
    private static byte[] liveCode(CodeRegion r) {
        byte[] out = new byte[Math.toIntExact(r.size())];
        MemoryIO.getInstance().getByteArray(r.start(), out, 0, out.length);
        return out;
    }

    /** The kernel thread id, from /proc/thread-self -> {@code <pid>/task/<tid>}. */
    private static int queryTid() {
        try {
            return Integer.parseInt(Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString());
        } catch (IOException | RuntimeException e) {
            return (int) ProcessHandle.current().pid();
        }
    }

    @Override public String toString() { return "jitdump " + file; }
}
