/**
 * Stack traces for BPF programs, one definition for every engine: {@code bpf_get_stackid} and
 * {@code bpf_get_stack} ({@link dev.bpf4j.stack.StackHelpers}) with the kernel's semantics,
 * {@link dev.bpf4j.stack.Jhash jhash2} bit-compatible with the kernel's, the run's
 * {@link dev.bpf4j.stack.StackSource} (probe-site registers, or the Java caller's stack), and
 * {@link dev.bpf4j.stack.StackTraceView} to read a stack trace map with symbols. See
 * docs/stack-traces.md.
 */
package dev.bpf4j.stack;
