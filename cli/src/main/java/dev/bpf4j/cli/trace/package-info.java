/**
 * {@code bpf4j trace}: probes native functions of a library with a kprobe-type program (the bundled
 * {@link dev.bpf4j.cli.trace.StackCount} by default), calls an entry function through
 * {@link dev.bpf4j.jit.probe.RootCall} and reads back the counted stacks as folded lines
 * ({@link dev.bpf4j.cli.trace.StackCounts}). See docs/native-probes.md.
 *
 * <p><b>Internal, not API</b>: public only for bpf4j's own modules; it may change in any release.
 */
package dev.bpf4j.cli.trace;
