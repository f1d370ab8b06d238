package dev.bpf4j.maps;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU numbering for per-CPU maps: one value slot per <em>possible</em> CPU
 * ({@code /sys/devices/system/cpu/possible}, as the kernel's {@code num_possible_cpus()}), and the
 * calling thread's current CPU from {@code sched_getcpu()} (called through jffi).
 */
public final class Cpus {
    private Cpus() {}

    private static final int POSSIBLE = readPossible();
    private static final CallContext INT_VOID = intVoid();
    private static final long SCHED_GETCPU = INT_VOID == null ? 0 : symbol("sched_getcpu");

    /** Number of possible CPUs: the highest id in {@code /sys/devices/system/cpu/possible} plus one. */
    public static int possible() { return POSSIBLE; }

    /**
     * The address of libc's {@code int sched_getcpu(void)}, which {@link #current()} calls, or 0 when
     * it is unavailable (then {@link #current()} is always 0): for native code that must agree with it.
     */
    public static long currentFunction() { return SCHED_GETCPU; }

    /** The CPU the calling thread runs on now (0 when {@code sched_getcpu} is unavailable). */
    public static int current() {
        if (SCHED_GETCPU == 0) return 0;
        int cpu = Invoker.getInstance().invokeI0(INT_VOID, SCHED_GETCPU);
        return cpu >= 0 && cpu < POSSIBLE ? cpu : 0;
    }

    /** Null when jffi cannot load here: {@link #current()} then answers 0. */
    private static CallContext intVoid() {
        try {
            return CallContext.getCallContext(Type.SINT, new Type[0], CallingConvention.DEFAULT, false);
        } catch (Throwable t) {
            return null;
        }
    }

    static long symbol(String name) {
        try {
            return Library.getDefault().getSymbolAddress(name);
        } catch (Throwable t) {
            return 0;
        }
    }

    /** Parses a kernel cpu list such as {@code 0-3,8} into its highest id plus one. */
    static int parseCount(String list) {
        int max = -1;
        for (String part : list.trim().split(",")) {
            if (part.isEmpty()) continue;
            int dash = part.indexOf('-');
            int hi = Integer.parseInt(dash < 0 ? part : part.substring(dash + 1));
            max = Math.max(max, hi);
        }
        if (max < 0) throw new IllegalArgumentException("empty cpu list '" + list + "'");
        return max + 1;
    }

    private static int readPossible() {
        try {
            return parseCount(Files.readString(Path.of("/sys/devices/system/cpu/possible")));
        } catch (IOException | RuntimeException e) {
            return Math.max(1, Runtime.getRuntime().availableProcessors());
        }
    }
}
