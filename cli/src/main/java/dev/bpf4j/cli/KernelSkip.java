package dev.bpf4j.cli;

import dev.bpf4j.kernel.KernelLoadException;
import dev.bpf4j.kernel.KernelRejectedException;

import java.util.List;

/**
 * When the kernel engine gives no verdict on a program — its verifier refused it, or the program is
 * not comparable there (a helper id meaning another helper, a program type without a test run) — the
 * kernel is skipped for that program, not failed: bpf4j's engines accept more than the kernel verifier
 * (immediate zero divisors, large shifts, unbounded loops ...). This says why, in one line.
 */
public final class KernelSkip {
    private KernelSkip() {}

    /** Whether bpf4j-kernel is on the class path (a test class path may leave it out; then nothing is a kernel skip). */
    private static final boolean PRESENT = present();

    /** The one-line reason when {@code e} means "no kernel verdict", else null. */
    public static String reason(Throwable e) {
        if (!PRESENT) return null;
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof KernelRejectedException r) return "the kernel verifier refused it (" + r.errnoName() + "): " + lastReason(r.verifierLog());
            if (t instanceof KernelLoadException k) return k.getMessage();
        }
        return null;
    }

    private static boolean present() {
        try {
            Class.forName("dev.bpf4j.kernel.KernelLoadException", false, KernelSkip.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** The verifier's reason: the last log line that is not its statistics ("processed N insns ..."). */
    static String lastReason(String log) {
        List<String> lines = log.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
        for (int i = lines.size() - 1; i >= 0; i--) {
            String l = lines.get(i);
            if (l.startsWith("processed ") || l.startsWith("verification time") || l.startsWith("stack depth")) continue;
            return l;
        }
        return "(no verifier log)";
    }
}
