package dev.bpf4j.jit.probe;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Type;
import org.junit.jupiter.api.Assumptions;

import java.nio.file.Path;
import java.util.List;

/**
 * The C library the probe tests trace, built by gcc at test time with {@link PatchableLibrary}
 * (tests skip without gcc).
 *
 * <p>Call tree: {@code top(a) = mid(a) + mid(a + 1)}, {@code mid(a) = leaf(a, 7) + 1},
 * {@code leaf(a, b) = 3a + b}. {@code scale(x, n) = 2 (x n + 0.5)} passes a double to {@code scaled} in xmm0. {@code plain} has no patchable entry, {@code singles} five 1-byte
 * nops; {@code cet_leaf} (built with {@code -fcf-protection}) starts with endbr64.
 * {@code mid_on_new_thread(a, mid_body)} calls {@code mid(a)} on a new native thread, one the JVM
 * does not know (the body's address comes from the caller: {@code -fno-pic} code cannot take it).
 */
final class TestLib {
    static final String SOURCE = String.join("\n",
            "#include <pthread.h>",
            "#define NI __attribute__((noinline))",
            "NI long leaf(long a, long b) { return a * 3 + b; }",
            "NI long mid(long a) { return leaf(a, 7) + 1; }",
            "NI long top(long a) { return mid(a) + mid(a + 1); }",
            "NI double scaled(double x, long n) { return x * n + 0.5; }",
            "NI long scale(long x, long n) { return (long) (scaled((double) x, n) * 2); }",
            "NI __attribute__((no_instrument_function)) long plain(long a) { return a + 1; }",
            "NI __attribute__((no_instrument_function, patchable_function_entry(5, 0))) long singles(long a) { return a + 2; }",
            "NI long hammer(long n, long (*f)(long)) { long s = 0; for (long i = 0; i < n; i++) s += f(i); return s; }",
            "NI void *mid_body(void *a) { return (void *) mid((long) a); }",
            "NI long mid_on_new_thread(long a, void *(*body)(void *)) { pthread_t t; void *r;",
            "    if (pthread_create(&t, 0, body, (void *) a)) return -1;",
            "    return pthread_join(t, &r) ? -1 : (long) r; }",
            "");
    static final String CET_SOURCE = "__attribute__((noinline)) long cet_leaf(long a) { return a * 5; }\n";

    private static final CallContext L_L = CallContext.getCallContext(Type.SINT64, new Type[]{Type.SINT64}, CallingConvention.DEFAULT, false);
    private static final CallContext L_LL = CallContext.getCallContext(Type.SINT64, new Type[]{Type.SINT64, Type.SINT64}, CallingConvention.DEFAULT, false);

    private static Path lib, cetLib;

    static synchronized String path() {
        if (lib == null) lib = build("probed", SOURCE, List.of());
        return lib.toString();
    }

    static synchronized String cetPath() {
        if (cetLib == null) cetLib = build("probedcet", CET_SOURCE, List.of("-fcf-protection=full"));
        return cetLib.toString();
    }

    static long address(String symbol) { return NativeProbes.address(path(), symbol); }

    static long call1(long fn, long a) { return Invoker.getInstance().invokeN1(L_L, fn, a); }

    static long call2(long fn, long a, long b) { return Invoker.getInstance().invokeN2(L_LL, fn, a, b); }

    private static Path build(String name, String source, List<String> extra) {
        Assumptions.assumeTrue(PatchableLibrary.gccAvailable(), "gcc is not installed: skipping the native probe test");
        return PatchableLibrary.build(name, source, extra);
    }

    static String run(List<String> cmd) { return PatchableLibrary.run(cmd); }
}
