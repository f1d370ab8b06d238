/**
 * JMH benchmarks and timing harnesses ({@code bench/README.md}).
 *
 * <p><b>Internal, not API</b>: public only for bpf4j's own modules; it may change in any release.
 */
package dev.bpf4j.bench;
