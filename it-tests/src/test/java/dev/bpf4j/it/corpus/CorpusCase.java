package dev.bpf4j.it.corpus;

import dev.bpf4j.api.RunOptions;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * One corpus program and the runs to make on it (in order, on one loaded object), plus an optional
 * check of the reference (interpreter) outcome, so a wrong answer both engines share still fails.
 * {@code pending} is null, or the JIT feature the case waits for (the JIT comparison is skipped).
 */
record CorpusCase(String object, String program, List<RunOptions> runs, Consumer<Outcome> expect, String pending) {
    /** A case the JIT cannot run yet: {@code pending} names the missing feature. */
    CorpusCase pending(String feature) { return new CorpusCase(object, program, runs, expect, feature); }

    static final Path DIR = Path.of("src/test/resources/objects/corpus");

    Path path() { return DIR.resolve(object + ".o"); }

    @Override public String toString() { return object + "/" + program; }
}
