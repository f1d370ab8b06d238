package dev.bpf4j.jit.probe;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Type;
import org.junit.jupiter.api.Assumptions;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The C library the return-probe tests trace, built by gcc at test time with
 * {@link PatchableLibrary} (fentry nops; tests skip without gcc).
 *
 * <p>{@code top(a) = mid(a) + mid(a + 1)}, {@code mid(a) = leaf(a) + 1}, {@code leaf(a) = 3a + 1};
 * {@code rec(n) = n <= 0 ? leaf(n) : rec(n - 1) + 1} (examples/calls.c's recursion: rec(n) = n + 1
 * for n >= 0); {@code catcher(v)} calls {@code jumped(v)}, which for v > 0 leaves through
 * {@code longjmp} back to catcher (returning 10 v) and returns -1 otherwise; {@code wait_flag(f)}
 * sets f[1] = 1 and spins until f[0] != 0, then returns 42; {@code hammer(n, f)} sums f(i), i < n;
 * {@code tail(a)} tail-calls (jmp) mid(a + 1).
 */
final class RetLib {
    static final String SOURCE = String.join("\n",
            "#include <setjmp.h>",
            "#define NI __attribute__((noinline))",
            "NI long leaf(long a) { return a * 3 + 1; }",
            "NI long mid(long a) { return leaf(a) + 1; }",
            "NI long top(long a) { return mid(a) + mid(a + 1); }",
            "NI long rec(long n) { long r = n <= 0 ? leaf(n) : rec(n - 1) + 1; __asm__ volatile(\"\" ::: \"memory\"); return r; }",
            "NI void escape(jmp_buf *env, long v) { longjmp(*env, (int) v); }",
            "NI long jumped(jmp_buf *env, long v) { if (v > 0) escape(env, v); __asm__ volatile(\"\" ::: \"memory\"); return -1; }",
            "NI long catcher(long v) { jmp_buf env; int got = setjmp(env); if (got) return got * 10L; return jumped(&env, v); }",
            "NI long wait_flag(volatile long *f) { f[1] = 1; while (!f[0]) __asm__ volatile(\"pause\"); return 42; }",
            "NI long hammer(long n, long (*f)(long)) { long s = 0; for (long i = 0; i < n; i++) s += f(i); return s; }",
            "NI __attribute__((optimize(\"optimize-sibling-calls\"))) long tail(long a) { return mid(a + 1); }",
            "");

    private static final CallContext L_L = CallContext.getCallContext(Type.SINT64, new Type[]{Type.SINT64}, CallingConvention.DEFAULT, false);
    private static Path lib;

    static synchronized String path() {
        if (lib == null) {
            Assumptions.assumeTrue(PatchableLibrary.gccAvailable(), "gcc is not installed: skipping the return probe test");
            lib = PatchableLibrary.build("retprobed", SOURCE, List.of());
        }
        return lib.toString();
    }

    static long address(String symbol) { return NativeProbes.address(path(), symbol); }

    static long call1(String fn, long a) { return Invoker.getInstance().invokeN1(L_L, address(fn), a); }

    /** The return addresses (in this process) of every call of {@code callee} (direct or through the PLT) in {@code caller}, from objdump. */
    static List<Long> returnSites(String caller, String callee) {
        String dump = PatchableLibrary.run(List.of("objdump", "-d", "--no-show-raw-insn", path()));
        Matcher fn = Pattern.compile("(?m)^([0-9a-f]+) <" + caller + ">:$").matcher(dump);
        if (!fn.find()) throw new AssertionError("objdump shows no " + caller);
        long base = address(caller) - Long.parseUnsignedLong(fn.group(1), 16);
        String body = dump.substring(fn.end(), dump.indexOf("\n\n", fn.end()));
        List<Long> out = new ArrayList<>();
        String[] lines = body.strip().split("\n");
        for (int i = 0; i + 1 < lines.length; i++) {
            if (lines[i].contains("call") && (lines[i].contains("<" + callee + ">") || lines[i].contains("<" + callee + "@plt>"))) {
                out.add(base + Long.parseUnsignedLong(lines[i + 1].strip().split(":")[0], 16));
            }
        }
        return out;
    }
}
