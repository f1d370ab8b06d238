package dev.bpf4j.elf;

import dev.bpf4j.runtime.BpfLoadException;

import java.util.function.Supplier;

/**
 * Runs one named phase of loading an object ("load sections", "load maps", ...) and prefixes
 * every {@link BpfLoadException} it raises with that name, so a message says where it happened.
 * Any other runtime exception is a bug in the parser; it is still reported as a load error (marked
 * "internal error") rather than escaping to the caller, and the fuzz tests look for that mark.
 */
public final class LoadPhase {
    private LoadPhase() {}

    public static final String INTERNAL_ERROR = "internal error";

    public static <T> T run(String phase, Supplier<T> body) {
        try {
            return body.get();
        } catch (BpfLoadException e) {
            throw new BpfLoadException(phase + ": " + e.getMessage(), e);
        } catch (RuntimeException | StackOverflowError e) {
            throw new BpfLoadException(phase + ": " + INTERNAL_ERROR + ": " + e, e);
        }
    }

    /**
     * For public entry points that are not a phase of their own: a parser bug still surfaces as a
     * {@link BpfLoadException} ("internal error"), never as another exception type.
     */
    public static <T> T guard(Supplier<T> body) {
        try {
            return body.get();
        } catch (BpfLoadException e) {
            throw e;
        } catch (RuntimeException | StackOverflowError e) {
            throw new BpfLoadException(INTERNAL_ERROR + ": " + e, e);
        }
    }

    public static void run(String phase, Runnable body) {
        run(phase, () -> {
            body.run();
            return null;
        });
    }

    /** A load error with a printf-style message. */
    public static BpfLoadException error(String format, Object... args) {
        return new BpfLoadException(String.format(format, args));
    }
}
