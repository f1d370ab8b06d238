package dev.bpf4j.unwind.sampling;

/**
 * What a sampler saw: samples delivered, samples the kernel reported lost (PERF_RECORD_LOST),
 * other records (throttling), threads it sampled over its life, and threads whose event could
 * not be set up after the first (a ring over the locked-memory limit, say), and the CPU time
 * (user + system) of its reader thread over its life, the start and the last drain included.
 */
public record SamplerStats(long samples, long lost, long otherRecords, int threads, int threadsRefused, String firstThreadError,
                           long readerCpuNanos) {}
