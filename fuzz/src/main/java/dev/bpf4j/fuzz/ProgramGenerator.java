package dev.bpf4j.fuzz;

/** A source of programs to fuzz with: the same seed always gives the same {@link FuzzCase}. */
public interface ProgramGenerator {
    /** Short name, as in {@code --mode}. */
    String name();

    FuzzCase generate(long seed);
}
