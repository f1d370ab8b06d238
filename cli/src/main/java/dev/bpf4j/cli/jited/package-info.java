/**
 * {@code bpf4j disasm --jited}: the JIT's code listed per BPF instruction.
 *
 * <p><b>Internal, not API</b>: public only for bpf4j's own modules; it may change in any release.
 */
package dev.bpf4j.cli.jited;
