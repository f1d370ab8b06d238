package dev.bpf4j.cli.profile;

import dev.bpf4j.cli.Args;
import dev.bpf4j.cli.UsageException;
import dev.bpf4j.unwind.sampling.PerfEventAttr;
import dev.bpf4j.unwind.sampling.SampleFormat;
import dev.bpf4j.unwind.sampling.SamplerOptions;

/** The sampling options {@code profile} and {@code demo} share: {@code -F HZ}, {@code --duration S}, {@code --stack-size BYTES}. */
public final class ProfileOptions {
    private ProfileOptions() {}

    static final long MAX_HZ = 10_000;

    public static long frequency(Args args, long dflt) {
        String v = args.option("-F").orElse(null);
        if (v == null) return dflt;
        long hz = parseLong(v, "-F");
        if (hz < 1 || hz > MAX_HZ) throw new UsageException("-F " + v + ": expected a frequency in Hz from 1 to " + MAX_HZ);
        return hz;
    }

    public static long durationNanos(Args args, double dfltSeconds) {
        String v = args.option("--duration").orElse(null);
        double s = dfltSeconds;
        if (v != null) {
            try {
                s = Double.parseDouble(v);
            } catch (NumberFormatException e) {
                throw new UsageException("--duration " + v + ": expected seconds, e.g. 3 or 0.5");
            }
            if (!(s > 0 && s <= 3600)) throw new UsageException("--duration " + v + ": expected more than 0 and at most 3600 seconds");
        }
        return (long) (s * 1e9);
    }

    /** For a perf_event program: every user register and the period of each sample too. */
    public static SamplerOptions programSampler(Args args, long hz, boolean callchain) {
        SamplerOptions plain = sampler(args, hz, callchain);
        return options(plain.attr().format().withProgramRegs(), hz);
    }

    public static SamplerOptions sampler(Args args, long hz, boolean callchain) {
        int stack = SampleFormat.DEFAULT_STACK_SIZE;
        if (args.option("--stack-size").isPresent()) {
            String v = args.option("--stack-size").get();
            long b = parseLong(v, "--stack-size");
            if (b < 8 || b % 8 != 0 || b > SampleFormat.MAX_STACK_SIZE) {
                throw new UsageException("--stack-size " + v + ": expected a multiple of 8 from 8 to " + SampleFormat.MAX_STACK_SIZE);
            }
            stack = (int) b;
        }
        return options(new SampleFormat(callchain, stack), hz);
    }

    private static SamplerOptions options(SampleFormat format, long hz) {
        int pages = SamplerOptions.DEFAULT_DATA_PAGES;
        while (pages * 4096L < 2L * format.maxRecordSize()) pages *= 2;
        return SamplerOptions.of(PerfEventAttr.cpuClockAtFrequency(hz, format), pages);
    }

    private static long parseLong(String v, String option) {
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new UsageException(option + " " + v + ": not a number");
        }
    }
}
