package dev.bpf4j.unwind;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.TreeMap;

/**
 * Symbols a process published for its generated code in {@code /tmp/perf-PID.map}, the file Linux
 * perf reads: one {@code START SIZE name} line per function, hex with or without {@code 0x}. A JVM
 * writes it with {@code -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit} (at exit) or
 * {@code jcmd PID Compiler.perfmap} (on demand), naming compiled Java methods ({@code long
 * Spin.f(long)}), the interpreter and stubs; bpf4j writes one for its JIT code ({@code --perf-map}).
 * The file is re-read when its size or modification time changes, checked at most once per
 * {@link #RECHECK_NANOS}; where it is absent nothing is named. Where entries overlap (the JVM reuses
 * code-cache space) the later line wins for its start address.
 */
public final class PerfMapFile {
    static final long RECHECK_NANOS = 250_000_000L;

    private record Entry(long size, String name) {}

    private final Path path;
    private TreeMap<Long, Entry> entries = new TreeMap<>();
    private long checkedAt;
    private boolean checked;
    private long size = -1, modified = -1;

    public PerfMapFile(Path path) { this.path = path; }

    /** {@code /tmp/perf-PID.map}. */
    public static PerfMapFile ofProcess(int pid) { return new PerfMapFile(Path.of("/tmp/perf-" + pid + ".map")); }

    public Path path() { return path; }

    /** The function holding {@code ip}, or null. */
    public synchronized FunctionSymbols.Hit lookup(long ip) {
        long now = System.nanoTime();
        if (!checked || now - checkedAt >= RECHECK_NANOS) {
            checked = true;
            checkedAt = now;
            reloadIfChanged();
        }
        Map.Entry<Long, Entry> e = entries.floorEntry(ip);
        if (e == null || Long.compareUnsigned(ip - e.getKey(), e.getValue().size()) >= 0) return null;
        return new FunctionSymbols.Hit(e.getValue().name(), ip - e.getKey());
    }

    /** Reads the file now (it may be removed afterwards: what was read is kept); returns the entries read. */
    synchronized int readNow() {
        checked = true;
        checkedAt = System.nanoTime();
        reloadIfChanged();
        return entries.size();
    }

    /** Entries read so far (for tests). */
    public synchronized int size() { return entries.size(); }

    private void reloadIfChanged() {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(path, BasicFileAttributes.class);
        } catch (IOException | SecurityException e) {
            return;   // not written (yet): keep what was read
        }
        if (a.size() == size && a.lastModifiedTime().toMillis() == modified) return;
        TreeMap<Long, Entry> read = new TreeMap<>();
        try (BufferedReader r = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
            for (String line; (line = r.readLine()) != null; ) parse(line, read);
        } catch (IOException | java.io.UncheckedIOException e) {
            return;   // being rewritten: try again at the next check
        }
        entries = read;
        size = a.size();
        modified = a.lastModifiedTime().toMillis();
    }

    /** {@code START SIZE name}; lines that are not are skipped, as perf skips them. */
    static void parse(String line, TreeMap<Long, Entry> into) {
        int s1 = line.indexOf(' ');
        int s2 = s1 < 0 ? -1 : line.indexOf(' ', s1 + 1);
        if (s2 < 0 || s2 + 1 >= line.length()) return;
        try {
            long start = hex(line.substring(0, s1)), size = hex(line.substring(s1 + 1, s2));
            if (size <= 0) return;
            into.put(start, new Entry(size, line.substring(s2 + 1).strip()));
        } catch (NumberFormatException e) {
            // not an entry
        }
    }

    private static long hex(String s) {
        return Long.parseUnsignedLong(s.startsWith("0x") || s.startsWith("0X") ? s.substring(2) : s, 16);
    }
}
