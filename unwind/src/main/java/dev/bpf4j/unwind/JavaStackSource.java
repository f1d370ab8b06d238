package dev.bpf4j.unwind;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The stack source for a program run from Java without registers: the calling thread's Java
 * frames (StackWalker), innermost first, with the engine's own frames at the top removed, each
 * interned to its {@link SyntheticFrames} ip. The trace is exact (reliable) and at most
 * {@link Unwinder#MAX_DEPTH} deep.
 */
public final class JavaStackSource {
    private static final StackWalker WALKER = StackWalker.getInstance();

    private final SyntheticFrames frames;
    private final Predicate<StackWalker.StackFrame> engineFrame;

    /** @param engineFrame true for frames of the runtime itself, dropped while they are innermost */
    public JavaStackSource(SyntheticFrames frames, Predicate<StackWalker.StackFrame> engineFrame) {
        this.frames = frames;
        this.engineFrame = engineFrame.or(f -> f.getClassName().equals(JavaStackSource.class.getName()));
    }

    /** Frames whose class is in one of {@code packages} (or below) count as the engine's. */
    public static Predicate<StackWalker.StackFrame> inPackages(String... packages) {
        return f -> {
            for (String p : packages) if (f.getClassName().startsWith(p + ".")) return true;
            return false;
        };
    }

    /** The caller's Java stack as synthetic ips. */
    public StackTrace capture() {
        List<StackWalker.StackFrame> walked = WALKER.walk(s -> s.dropWhile(engineFrame).limit(Unwinder.MAX_DEPTH).collect(Collectors.toList()));
        List<Long> ips = new ArrayList<>(walked.size());
        for (StackWalker.StackFrame f : walked) ips.add(frames.intern(SyntheticFrames.JavaFrame.of(f)));
        return new StackTrace(ips, true);
    }
}
