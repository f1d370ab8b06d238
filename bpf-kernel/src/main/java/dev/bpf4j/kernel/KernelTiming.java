package dev.bpf4j.kernel;

/**
 * What a timed kernel run returned: the full 64-bit r0 of the last run and the kernel's average
 * duration of one run in ns (BPF_PROG_TEST_RUN's {@code duration}, measured inside the kernel).
 */
public record KernelTiming(long r0, long averageNs) {}
