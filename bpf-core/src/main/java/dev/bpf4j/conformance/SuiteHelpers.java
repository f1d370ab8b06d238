package dev.bpf4j.conformance;

import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.helpers.ProbeMemory;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.HelperSpec;

import java.util.List;

/**
 * The helpers a {@code .data} program may call. Helper 5 is the suites' {@code unwind}: it returns its
 * first argument and, when that is 0, ends the program at once with r0 = 0 (uBPF's convention). The
 * others are kernel helpers under their kernel ids whose result depends neither on time, CPU nor
 * native addresses, so that every engine must give the same answer (the fuzzer calls them with odd
 * arguments): {@code bpf_trace_printk} (output dropped), {@code bpf_get_current_pid_tgid} and
 * {@code bpf_probe_read_kernel(_str)}, restricted to the run's own regions.
 */
public final class SuiteHelpers {
    private SuiteHelpers() {}

    /** Helper id of the suites' {@code unwind} (the kernel's {@code bpf_ktime_get_ns} is not offered). */
    public static final int UNWIND = 5;

    /** Every helper id in {@link #REGISTRY}. */
    public static final List<Integer> IDS = List.of(UNWIND, HelperIds.TRACE_PRINTK, HelperIds.GET_CURRENT_PID_TGID,
            HelperIds.PROBE_READ_KERNEL, HelperIds.PROBE_READ_KERNEL_STR);

    public static final HelperRegistry REGISTRY = registry();

    private static HelperRegistry registry() {
        HelperRegistry kernel = BpfHelpers.registry(MapTable.of(List.of()),
                BpfHelpers.Options.defaults().withTraceSink(line -> { }).withProbeMode(ProbeMemory.Mode.REGIONS_ONLY));
        HelperRegistry.Builder b = HelperRegistry.builder().add(UNWIND, "unwind", (call, r1, r2, r3, r4, r5) -> {
            if (r1 == 0) call.exit(0);
            return r1;
        });
        for (int id : IDS) {
            if (id == UNWIND) continue;
            HelperSpec s = kernel.lookup(id).orElseThrow(() -> new IllegalStateException("no kernel helper " + id));
            if (s.nativeForm() != null) b.addNative(id, s.name(), s.body(), s.nativeForm());
            else if (s.forwardArguments() && s.lookupInlining() != null) b.addForward(id, s.name(), s.body(), s.lookupInlining());
            else if (s.forwardArguments()) b.addForward(id, s.name(), s.body());
            else b.add(id, s.name(), s.body());
        }
        return b.build();
    }
}
