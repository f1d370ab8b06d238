package dev.bpf4j.unwind.profile;

import dev.bpf4j.unwind.StackTrace;
import dev.bpf4j.unwind.sampling.PerfRecord;

/** A sample with the trace bpf4j's unwinder made of it (innermost first). */
public record UnwoundSample(PerfRecord.Sample sample, StackTrace trace) {}
