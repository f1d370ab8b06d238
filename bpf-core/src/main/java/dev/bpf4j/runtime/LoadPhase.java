package dev.bpf4j.runtime;

import dev.bpf4j.elf.ElfFormatException;
import dev.bpf4j.elf.ElfPhase;

import java.util.function.Supplier;

/**
 * Runs one named phase of loading an object ("load sections", "load maps", ...) and prefixes
 * every {@link BpfLoadException} it raises with that name, so a message says where it happened.
 * An {@link ElfFormatException} from the ELF reader becomes a {@link BpfLoadException} with the
 * same message. Any other runtime exception is a bug in the parser; it is still reported as a load
 * error (marked "internal error") rather than escaping to the caller, and the fuzz tests look for that mark.
 */
public final class LoadPhase {
    private LoadPhase() {}

    public static final String INTERNAL_ERROR = ElfPhase.INTERNAL_ERROR;

    public static <T> T run(String phase, Supplier<T> body) {
        try {
            return body.get();
        } catch (BpfLoadException | ElfFormatException e) {
            throw new BpfLoadException(phase + ": " + e.getMessage(), e);
        } catch (RuntimeException | StackOverflowError e) {
            throw new BpfLoadException(phase + ": " + INTERNAL_ERROR + ": " + e, e);
        }
    }

    /**
     * For public entry points that are not a phase of their own: an ELF format error becomes a
     * load error with the same message, a parser bug a {@link BpfLoadException} ("internal error").
     */
    public static <T> T guard(Supplier<T> body) {
        try {
            return body.get();
        } catch (BpfLoadException e) {
            throw e;
        } catch (ElfFormatException e) {
            throw new BpfLoadException(e.getMessage(), e);
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
