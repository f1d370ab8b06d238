package dev.bpf4j.stack;

import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.RunEntry;
import dev.bpf4j.unwind.SyntheticFrames;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The stack of a run started from Java without registers: the calling thread's Java frames,
 * innermost first, each interned to its {@link SyntheticFrames} ip, starting at the frame that
 * called {@link Executable#run}. Everything from the innermost {@code Executable.run} inward — the
 * helper, the interpreter loop, or the JIT's native-call, jffi closure and helper-bridge frames — is
 * dropped, and so is every frame outside it that belongs to the runtime ({@link Executable},
 * {@link HelperCall} and {@link RunEntry} classes, jffi) — the wrappers just outside the run, and
 * the outer engine's frames when the run is nested in a helper of another run. The trace therefore
 * depends only on the Java call path, never on the engine.
 */
public final class JavaCallerStack {
    private static final StackWalker WALKER = StackWalker.getInstance(Set.of(StackWalker.Option.RETAIN_CLASS_REFERENCE));
    private static final JavaCallerStack GLOBAL = new JavaCallerStack(SyntheticFrames.global());

    private final SyntheticFrames frames;

    public JavaCallerStack(SyntheticFrames frames) { this.frames = frames; }

    public static JavaCallerStack global() { return GLOBAL; }

    /**
     * At most {@code maxDepth} synthetic ips of the caller's stack; empty when no
     * {@code Executable.run} is on this thread's stack (the helper was not called by a run).
     */
    public long[] capture(int maxDepth) {
        List<StackWalker.StackFrame> kept = WALKER.walk(s -> {
            List<StackWalker.StackFrame> out = new ArrayList<>();
            Iterator<StackWalker.StackFrame> it = s.iterator();
            boolean inRun = false;
            while (it.hasNext()) {
                StackWalker.StackFrame f = it.next();
                if (isRunFrame(f)) { inRun = true; break; }
            }
            if (!inRun) return out;
            while (it.hasNext() && out.size() < maxDepth) {
                StackWalker.StackFrame f = it.next();
                if (isRuntimeFrame(f)) continue;
                out.add(f);
            }
            return out;
        });
        long[] ips = new long[kept.size()];
        for (int i = 0; i < ips.length; i++) ips[i] = frames.intern(SyntheticFrames.JavaFrame.of(kept.get(i)));
        return ips;
    }

    private static boolean isRunFrame(StackWalker.StackFrame f) {
        return f.getMethodName().equals("run") && Executable.class.isAssignableFrom(f.getDeclaringClass());
    }

    /** Frames of the runtime outside the innermost run: wrappers, outer engines' loops and bridges. */
    private static boolean isRuntimeFrame(StackWalker.StackFrame f) {
        Class<?> c = f.getDeclaringClass();
        return Executable.class.isAssignableFrom(c) || HelperCall.class.isAssignableFrom(c)
                || c.isAnnotationPresent(RunEntry.class) || c.getName().startsWith("com.kenai.jffi.");
    }
}
