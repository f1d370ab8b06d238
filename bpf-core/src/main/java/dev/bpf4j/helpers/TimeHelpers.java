package dev.bpf4j.helpers;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.runtime.HelperRegistry;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/**
 * The clocks of kernel/bpf/helpers.c besides {@code bpf_ktime_get_ns}: {@code bpf_ktime_get_coarse_ns}
 * (CLOCK_MONOTONIC_COARSE), {@code bpf_ktime_get_tai_ns} (CLOCK_TAI) and {@code bpf_jiffies64}, the
 * kernel's tick count: {@code INITIAL_JIFFIES} (2^32 - 300 HZ, so that 32-bit jiffies wrap five
 * minutes after boot) plus the monotonic time in ticks of the running kernel's {@code CONFIG_HZ}.
 */
final class TimeHelpers {
    private TimeHelpers() {}

    static final int CLOCK_MONOTONIC_COARSE = 6, CLOCK_TAI = 11;
    /** CONFIG_HZ of the running kernel (/proc/config.gz or /boot/config-*); 250, Debian's and Fedora's, when neither says. */
    static final int HZ = configHz();
    static final long INITIAL_JIFFIES = (1L << 32) - 300L * HZ;

    static void register(HelperRegistry.Builder b) {
        b.add(HelperIds.KTIME_GET_COARSE_NS, "bpf_ktime_get_coarse_ns", (call, r1, r2, r3, r4, r5) -> coarseNs());
        b.add(HelperIds.KTIME_GET_TAI_NS, "bpf_ktime_get_tai_ns",
                (call, r1, r2, r3, r4, r5) -> Libc.clockNs(CLOCK_TAI, () -> System.currentTimeMillis() * 1_000_000L + 37_000_000_000L));
        b.add(HelperIds.JIFFIES64, "bpf_jiffies64", (call, r1, r2, r3, r4, r5) -> jiffies64());
    }

    static long coarseNs() { return Libc.clockNs(CLOCK_MONOTONIC_COARSE, System::nanoTime); }

    /** get_jiffies_64(): ticks since boot counted from INITIAL_JIFFIES. */
    static long jiffies64() { return INITIAL_JIFFIES + coarseNs() / (1_000_000_000L / HZ); }

    private static int configHz() {
        try {
            Path gz = Path.of("/proc/config.gz");
            if (Files.isReadable(gz)) {
                try (InputStream in = new GZIPInputStream(Files.newInputStream(gz))) {
                    int hz = hzIn(in);
                    if (hz > 0) return hz;
                }
            }
            Path boot = Path.of("/boot/config-" + System.getProperty("os.version"));
            if (Files.isReadable(boot)) {
                try (InputStream in = Files.newInputStream(boot)) {
                    int hz = hzIn(in);
                    if (hz > 0) return hz;
                }
            }
        } catch (IOException | RuntimeException e) {
            // fall through to the default
        }
        return 250;
    }

    private static int hzIn(InputStream in) throws IOException {
        BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
        for (String line; (line = r.readLine()) != null; ) {
            if (line.startsWith("CONFIG_HZ=")) return Integer.parseInt(line.substring("CONFIG_HZ=".length()).trim());
        }
        return -1;
    }
}
