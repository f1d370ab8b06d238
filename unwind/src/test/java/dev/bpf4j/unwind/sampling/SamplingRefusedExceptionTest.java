package dev.bpf4j.unwind.sampling;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** What a user is told when the kernel refuses: the sysctl (with its value here), the capability, the fix. */
class SamplingRefusedExceptionTest {
    @Test
    void aRefusalNamesTheSysctlItsValueAndTheCapabilities() throws Exception {
        String paranoid = Files.readString(Path.of("/proc/sys/kernel/perf_event_paranoid")).trim();
        for (int errno : new int[] {1, 13}) {
            assertThat(SamplingRefusedException.open(errno).getMessage())
                    .contains("kernel.perf_event_paranoid is " + paranoid)
                    .contains("sudo sysctl kernel.perf_event_paranoid=2")
                    .contains("CAP_PERFMON")
                    .contains(errno == 1 ? "EPERM" : "EACCES");
        }
        assertThat(SamplingRefusedException.open(38).getMessage()).contains("ENOSYS").contains("seccomp");
        assertThat(SamplingRefusedException.open(22).getMessage()).contains("kernel.perf_event_max_sample_rate");
        // perf_event_mlock_kb has several digits (516 by default): the whole value, not its first byte.
        String mlock = SamplingRefusedException.sysctl("perf_event_mlock_kb");
        assertThat(mlock).isEqualTo(new String(Files.readAllLines(Path.of("/proc/sys/kernel/perf_event_mlock_kb")).get(0)).trim()).hasSizeGreaterThan(1);
        assertThat(SamplingRefusedException.mmap(1, 266240).getMessage()).contains("260 KiB")
                .contains("kernel.perf_event_mlock_kb (" + mlock + " KiB per user)").contains("ulimit -l");
    }

    @Test
    void timedDrainsAndRescansAreSpaced() {
        // The watermark wakes the reader when a ring needs it (SamplerLiveTest): timed drains are rare at any rate.
        assertThat(SamplerOptions.atFrequency(99).drainMillis()).isEqualTo(1000);
        assertThat(SamplerOptions.atFrequency(999).drainMillis()).isEqualTo(1000);
        // New threads come from fork records (SamplerLiveTest): the task list is read only for the rest.
        assertThat(SamplerOptions.atFrequency(99).rescanMillis()).isEqualTo(10_000);
    }
}
