package dev.bpf4j.cli;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The options every {@code bpf4j fuzz} mode shares, parsed once: {@code --seed}, {@code --count} |
 * {@code --time} (1,000 cases when neither is given), {@code --jobs}, {@code --minimise} and {@code --out}.
 */
record CampaignOptions(long seed, Long count, Duration time, int jobs, int minimise, Path outDir) {
    static CampaignOptions parse(Args args) {
        long seed = args.option("--seed").map(s -> FuzzCommand.parseLong("--seed", s)).orElse(System.currentTimeMillis());
        Long count = args.option("--count").map(s -> FuzzCommand.parseLong("--count", s)).orElse(null);
        Duration time = args.option("--time").map(FuzzCommand::parseDuration).orElse(null);
        if (count != null && time != null) throw new UsageException("give --count or --time, not both");
        if (count == null && time == null) count = 1000L;
        int jobs = (int) args.option("--jobs").map(s -> FuzzCommand.parseLong("--jobs", s)).orElse(1L).longValue();
        int minimise = (int) args.option("--minimise").map(s -> FuzzCommand.parseLong("--minimise", s)).orElse(5L).longValue();
        if (jobs < 1 || minimise < 0) throw new UsageException("--jobs must be at least 1 and --minimise not negative");
        return new CampaignOptions(seed, count, time, jobs, minimise, args.option("--out").map(Path::of).orElse(null));
    }

    /** The same campaign over {@code n} cases from seed 0: a replay runs every file once. */
    CampaignOptions everyFileOnce(int n) {
        return new CampaignOptions(0, (long) n, null, jobs, minimise, outDir);
    }

    String extent(String what) {
        return count != null ? count + " " + what : time.toSeconds() + " s";
    }
}
