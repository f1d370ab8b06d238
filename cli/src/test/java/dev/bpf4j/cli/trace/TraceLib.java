package dev.bpf4j.cli.trace;

import dev.bpf4j.jit.probe.PatchableLibrary;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The C library the trace tests probe: {@code examples/calls.c} (the README's example), built with
 * gcc at test time by {@link PatchableLibrary} (the tests skip without gcc). Its call tree, with
 * recursion and functions called from several parents ({@code leaf} from left, right and rec;
 * {@code rec} from left, drive and itself):
 *
 * <pre>
 * drive(n) = sum over i &lt; n of (left(i) + right(i)), + rec(1)
 * left(a)  = leaf(a) + rec(2)          rec(n) = n &lt;= 0 ? leaf(n) : rec(n - 1) + 1
 * right(a) = 2 leaf(a)                 leaf(a) = 3a + 1
 * </pre>
 *
 * so drive(n) = 9n(n-1)/2 + 6n + 2. {@code plain} has no patchable entry.
 */
public final class TraceLib {
    /** Tests run in the module directory. */
    static final Path SOURCE = Path.of("../examples/calls.c");

    private static Path lib;

    private TraceLib() {}

    public static synchronized Path path() {
        Assumptions.assumeTrue(PatchableLibrary.gccAvailable(), "gcc is not installed: skipping the trace test (it builds its C library at test time)");
        if (lib == null) {
            try {
                lib = PatchableLibrary.build("calls", Files.readString(SOURCE), List.of());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return lib;
    }

    /** drive(n), worked out from the call tree. */
    public static long drive(long n) { return 9 * n * (n - 1) / 2 + 6 * n + 2; }
}
