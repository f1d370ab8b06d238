package dev.bpf4j.fuzz;

/**
 * One way the engines (or two runs of one engine) disagree. {@code kind} is the class the campaign
 * counts and the minimiser preserves ({@code r0}, {@code error}, {@code memory}, {@code verdict},
 * {@code unstable-ENGINE}, {@code crash-ENGINE}); {@code detail} says what each side showed.
 */
public record Difference(String kind, String detail) {
    @Override public String toString() { return kind + ": " + detail; }
}
