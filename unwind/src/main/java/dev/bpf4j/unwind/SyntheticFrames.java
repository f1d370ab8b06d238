package dev.bpf4j.unwind;

import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Interns Java frames (class, method, file, line) to stable synthetic instruction pointers, so a
 * Java call path can be a stack trace like any other (a list of ips that a BPF stack map hashes and
 * the {@link Symbolizer} names {@code Class.method(File:line)}).
 *
 * <p>The ips lie in {@code [BASE, BASE + 2^34)} with {@code BASE = 0x6a61_7661_0000_0000} ("java"
 * in ASCII). No instruction can ever live there: x86-64 addresses are canonical only when bits
 * 63..47 (63..56 with 5-level paging) are all equal, and these have bit 63 clear and bits 62..56
 * set, so the CPU faults on any access and no mapping, JIT or library can occupy the range. Each
 * frame gets a 16-byte slot ({@code BASE + id * 16}); every ip in the slot names it, so consumers
 * that subtract 1 from return addresses still resolve it. An ip is stable for the life of the
 * process (the same frame always gets the same ip); it is not stable across processes.
 */
public final class SyntheticFrames {
    public static final long BASE = 0x6a61_7661_0000_0000L;
    public static final int SLOT = 16;
    public static final long MAX_FRAMES = 1L << 30;
    private static final SyntheticFrames GLOBAL = new SyntheticFrames();

    /** A Java source position; {@code file} may be null and {@code line} negative when unknown. */
    public record JavaFrame(String className, String methodName, String file, int line) {
        public JavaFrame {
            Objects.requireNonNull(className, "className");
            Objects.requireNonNull(methodName, "methodName");
        }

        public static JavaFrame of(StackWalker.StackFrame f) {
            return new JavaFrame(f.getClassName(), f.getMethodName(), f.getFileName(), f.getLineNumber());
        }

        /** {@code Class.method(File:line)}, as a Java stack trace prints it. */
        @Override public String toString() {
            String where = file == null ? "Unknown Source" : line >= 0 ? file + ":" + line : file;
            return className + "." + methodName + "(" + where + ")";
        }
    }

    private final ConcurrentHashMap<JavaFrame, Long> ips = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, JavaFrame> byIp = new ConcurrentHashMap<>();

    /** The registry every stack source and the global {@link Symbolizer} share. */
    public static SyntheticFrames global() { return GLOBAL; }

    /** True when {@code ip} lies in the synthetic range (whether or not a frame was interned there). */
    public static boolean isSynthetic(long ip) { return Long.compareUnsigned(ip - BASE, MAX_FRAMES * SLOT) < 0; }

    /** The ip of {@code frame}, assigning the next slot the first time it is seen. */
    public long intern(JavaFrame frame) {
        Long ip = ips.get(frame);
        if (ip != null) return ip;
        synchronized (this) {
            return ips.computeIfAbsent(frame, f -> {
                if (byIp.size() >= MAX_FRAMES) throw new IllegalStateException("more than " + MAX_FRAMES + " synthetic frames");
                long next = BASE + (long) byIp.size() * SLOT;
                byIp.put(next, f);
                return next;
            });
        }
    }

    public long intern(String className, String methodName, String file, int line) {
        return intern(new JavaFrame(className, methodName, file, line));
    }

    /** The frame interned at {@code ip}'s slot. */
    public Optional<JavaFrame> lookup(long ip) {
        if (!isSynthetic(ip)) return Optional.empty();
        return Optional.ofNullable(byIp.get(ip - (ip - BASE) % SLOT));
    }

    public int size() { return byIp.size(); }
}
