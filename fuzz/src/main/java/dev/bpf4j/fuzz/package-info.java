/**
 * Differential fuzzing of the engines: seeded generators ({@link dev.bpf4j.fuzz.GrammarGenerator},
 * {@link dev.bpf4j.fuzz.RawBytesGenerator}, {@link dev.bpf4j.fuzz.DataFileMutator}, object mutation),
 * {@link dev.bpf4j.fuzz.DifferentialHarness}, {@link dev.bpf4j.fuzz.Minimiser} and
 * {@link dev.bpf4j.fuzz.Reproducer}; docs/fuzzing.md.
 *
 * <p><b>Internal, not API</b>: public only for bpf4j's own modules (the CLI's {@code fuzz} verbs); it may
 * change in any release.
 */
package dev.bpf4j.fuzz;
