package dev.bpf4j.cli.trace;

import dev.bpf4j.jit.probe.PatchableLibrary;
import org.junit.jupiter.api.Assumptions;

import java.nio.file.Path;
import java.util.List;

/**
 * The C library the trace tests probe, built with gcc at test time by {@link PatchableLibrary}
 * (the tests skip without gcc). Known call tree, with recursion and functions called from several
 * parents ({@code leaf} from left, right and rec; {@code rec} from left, drive and itself):
 *
 * <pre>
 * drive(n) = sum over i &lt; n of (left(i) + right(i)), + rec(1)
 * left(a)  = leaf(a) + rec(2)          rec(n) = n &lt;= 0 ? leaf(n) : rec(n - 1) + 1
 * right(a) = 2 leaf(a)                 leaf(a) = 3a + 1
 * </pre>
 *
 * so drive(n) = 9n(n-1)/2 + 6n + 2. The empty asm after the recursive call keeps gcc from turning
 * the recursion into a loop. {@code plain} has no patchable entry.
 */
public final class TraceLib {
    public static final String SOURCE = String.join("\n",
            "#define NI __attribute__((noinline))",
            "NI long leaf(long a) { return a * 3 + 1; }",
            "NI long rec(long n) { long r = n <= 0 ? leaf(n) : rec(n - 1) + 1; __asm__ volatile(\"\" ::: \"memory\"); return r; }",
            "NI long left(long a) { return leaf(a) + rec(2); }",
            "NI long right(long a) { return leaf(a) * 2; }",
            "NI long drive(long n) { long s = 0; for (long i = 0; i < n; i++) s += left(i) + right(i); return s + rec(1); }",
            "NI __attribute__((no_instrument_function)) long plain(long a) { return a + 1; }",
            "");

    private static Path lib;

    private TraceLib() {}

    public static synchronized Path path() {
        Assumptions.assumeTrue(PatchableLibrary.gccAvailable(), "gcc is not installed: skipping the trace test (it builds its C library at test time)");
        if (lib == null) lib = PatchableLibrary.build("traced", SOURCE, List.of());
        return lib;
    }

    /** drive(n), worked out from the call tree. */
    public static long drive(long n) { return 9 * n * (n - 1) / 2 + 6 * n + 2; }
}
