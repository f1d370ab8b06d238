package dev.bpf4j.fuzz;

import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.helpers.HelperIds;
import dev.bpf4j.helpers.ProbeMemory;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.HelperSpec;
import dev.bpf4j.runtime.LoadOptions;

import java.util.List;

/**
 * How fuzzed programs are loaded and run: the conformance suites' convention (r1 = memory block,
 * r2 = its length, helper 5 = {@code unwind}, which ends the program with r0 = 0 when its argument is
 * 0), plus the kernel helpers whose result does not depend on time, CPU or native addresses, so that
 * both engines must give the same answer: {@code bpf_get_current_pid_tgid},
 * {@code bpf_probe_read_kernel(_str)} restricted to the run's own regions, and
 * {@code bpf_trace_printk} with its output dropped.
 */
public final class FuzzConventions {
    private FuzzConventions() {}

    /** Helper id of the suites' {@code unwind} (the kernel's {@code bpf_ktime_get_ns} is not offered). */
    public static final int UNWIND = 5;

    /** The helper ids a fuzzed program may call. */
    public static final List<Integer> HELPERS = List.of(UNWIND, HelperIds.TRACE_PRINTK, HelperIds.GET_CURRENT_PID_TGID,
            HelperIds.PROBE_READ_KERNEL, HelperIds.PROBE_READ_KERNEL_STR);

    /** Back-edges plus calls per run: small, so that runaway loops end quickly and identically. */
    public static final long BUDGET = 2_000;

    public static final HelperRegistry REGISTRY = registry();

    public static LoadOptions loadOptions() {
        return LoadOptions.defaults().withHelpers(REGISTRY).withEntryArgs(2);
    }

    private static HelperRegistry registry() {
        HelperRegistry kernel = BpfHelpers.registry(MapTable.of(List.of()),
                BpfHelpers.Options.defaults().withTraceSink(line -> { }).withProbeMode(ProbeMemory.Mode.REGIONS_ONLY));
        HelperRegistry.Builder b = HelperRegistry.builder().add(UNWIND, "unwind", (call, r1, r2, r3, r4, r5) -> {
            if (r1 == 0) call.exit(0);
            return r1;
        });
        for (int id : HELPERS) {
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
