package dev.bpf4j.elf;

import java.util.function.Supplier;

/**
 * Runs one named phase of reading an ELF file ("load sections", "load symbols", ...) and prefixes
 * every {@link ElfFormatException} it raises with that name, so a message says where it happened.
 * Any other runtime exception is a bug in the reader; it is still reported as a format error
 * (marked {@value #INTERNAL_ERROR}) rather than escaping, and fuzz tests look for that mark.
 */
public final class ElfPhase {
    private ElfPhase() {}

    public static final String INTERNAL_ERROR = "internal error";

    public static <T> T run(String phase, Supplier<T> body) {
        try {
            return body.get();
        } catch (ElfFormatException e) {
            throw new ElfFormatException(phase + ": " + e.getMessage(), e);
        } catch (RuntimeException | StackOverflowError e) {
            throw new ElfFormatException(phase + ": " + INTERNAL_ERROR + ": " + e, e);
        }
    }

    /** For public entry points that are not a phase of their own: a reader bug still surfaces as an {@link ElfFormatException}. */
    public static <T> T guard(Supplier<T> body) {
        try {
            return body.get();
        } catch (ElfFormatException e) {
            throw e;
        } catch (RuntimeException | StackOverflowError e) {
            throw new ElfFormatException(INTERNAL_ERROR + ": " + e, e);
        }
    }

    /** A format error with a printf-style message. */
    public static ElfFormatException error(String format, Object... args) {
        return new ElfFormatException(String.format(format, args));
    }
}
