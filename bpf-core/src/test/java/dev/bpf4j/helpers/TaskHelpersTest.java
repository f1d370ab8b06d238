package dev.bpf4j.helpers;

import dev.bpf4j.maps.Cpus;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static dev.bpf4j.runtime.HelperIds.*;
import static org.assertj.core.api.Assertions.assertThat;

class TaskHelpersTest {
    private static final MapTable NO_MAPS = MapTable.of(List.of());
    private final HelperRegistry reg = BpfHelpers.registry(NO_MAPS);

    @Test void pidTgidIsProcessAndThreadIds() throws Exception {
        try (TestCall call = new TestCall()) {
            long v = call.call(reg, GET_CURRENT_PID_TGID);
            assertThat(v >>> 32).isEqualTo(ProcessHandle.current().pid());
            String self = Files.readSymbolicLink(Path.of("/proc/thread-self")).toString(); // "<pid>/task/<tid>"
            assertThat(v & 0xffffffffL).isEqualTo(Long.parseLong(self.substring(self.lastIndexOf('/') + 1)));
        }
    }

    @Test void commIsTheThreadNameNulPadded() throws Exception {
        AtomicReference<String> full = new AtomicReference<>(), shortened = new AtomicReference<>();
        AtomicReference<byte[]> raw = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try (TestCall call = new TestCall()) {
                long buf = call.buffer(32, true);
                NativeMemory.setMemory(buf, 32, (byte) 'x');
                assertThat(call.call(reg, GET_CURRENT_COMM, buf, 32)).isZero();
                raw.set(NativeMemory.read(buf, 32));
                full.set(cstr(buf, 32));
                assertThat(call.call(reg, GET_CURRENT_COMM, buf, 5)).isZero();
                shortened.set(cstr(buf, 5));
            }
        }, "bpf4j-commtest");
        t.start();
        t.join();
        assertThat(full.get()).isEqualTo("bpf4j-commtest");
        assertThat(raw.get()).endsWith(new byte[32 - 14]);
        assertThat(shortened.get()).isEqualTo("bpf4");
    }

    private static String cstr(long a, int max) {
        byte[] b = NativeMemory.read(a, max);
        int n = 0;
        while (n < max && b[n] != 0) n++;
        return new String(b, 0, n, StandardCharsets.UTF_8);
    }

    @Test void clocksCpuAndRandom() {
        try (TestCall call = new TestCall()) {
            long a = call.call(reg, KTIME_GET_NS), b = call.call(reg, KTIME_GET_NS);
            assertThat(b).isGreaterThanOrEqualTo(a);
            long boot = call.call(reg, KTIME_GET_BOOT_NS);
            assertThat(boot).isGreaterThanOrEqualTo(a); // CLOCK_BOOTTIME >= CLOCK_MONOTONIC
            assertThat(call.call(reg, GET_SMP_PROCESSOR_ID)).isBetween(0L, (long) Cpus.possible() - 1);
            assertThat(call.call(reg, GET_NUMA_NODE_ID)).isGreaterThanOrEqualTo(0);
            long r1 = call.call(reg, GET_PRANDOM_U32), r2 = call.call(reg, GET_PRANDOM_U32), r3 = call.call(reg, GET_PRANDOM_U32);
            assertThat(List.of(r1, r2, r3)).allMatch(r -> r >= 0 && r <= 0xffffffffL);
            assertThat(r1 == r2 && r2 == r3).isFalse();
        }
    }

    @Test void cpuListParsing() {
        assertThat(Cpus.possible()).isGreaterThanOrEqualTo(Runtime.getRuntime().availableProcessors());
    }
}
