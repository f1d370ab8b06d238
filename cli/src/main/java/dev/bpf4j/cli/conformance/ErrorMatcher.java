package dev.bpf4j.cli.conformance;

import java.util.List;
import java.util.Locale;

/**
 * Decides whether an error message satisfies a {@code -- error} expectation.
 *
 * <p>Rule: the expected text and the message are compared lower-cased. When the expected text
 * names one of bpf4j's error categories ({@link #CATEGORIES}: "out of bounds", "misaligned
 * atomic", "budget exceeded", "call depth exceeded", "rejected", ...), the message must contain that category.
 * Otherwise the expected text is another runtime's wording (uBPF's "division by zero", ...), and
 * any load, validation or run-time error satisfies it.
 */
public final class ErrorMatcher {
    private ErrorMatcher() {}

    /** Phrases that appear in bpf4j's own messages (BpfRuntimeException kinds, VerifierException). */
    public static final List<String> CATEGORIES = List.of(
            "out of bounds", "misaligned atomic", "budget exceeded", "call depth exceeded", "bad helper argument",
            "helper failed", "rejected");

    /** Null when {@code message} satisfies {@code expected}, else the reason it does not. */
    public static String mismatch(String expected, String message) {
        String want = expected.toLowerCase(Locale.ROOT);
        String got = message.toLowerCase(Locale.ROOT);
        for (String category : CATEGORIES) {
            if (want.contains(category) && !got.contains(category)) {
                return "expected an error containing '" + category + "', got: " + message;
            }
        }
        return null;
    }
}
