package dev.bpf4j.cli.conformance;

import dev.bpf4j.conformance.SuiteHelpers;
import dev.bpf4j.runtime.EntryRegisters;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;

/** The helpers and load options the public conformance suites assume. */
public final class ConformanceHelpers {
    private ConformanceHelpers() {}

    /** Helper id of the suites' {@code unwind}. */
    public static final int UNWIND = SuiteHelpers.UNWIND;

    /**
     * Helper 5 returns its first argument; when that is 0 the whole program ends at once with
     * r0 = 0 (uBPF's convention, which the suites' {@code call_unwind*} tests rely on). Also the
     * deterministic kernel helpers of {@link SuiteHelpers}, which fuzzer reproducers call.
     */
    public static final HelperRegistry HELPERS = SuiteHelpers.REGISTRY;

    /** r1 = memory block, r2 = its length; helper 5. */
    public static LoadOptions loadOptions() {
        return LoadOptions.defaults().withHelpers(HELPERS).withEntry(EntryRegisters.MEMORY_BLOCK);
    }

    /** As {@link #loadOptions()}; without a memory block r1 and r2 are the plain value 0. */
    public static LoadOptions loadOptions(boolean hasMemory) {
        return hasMemory ? loadOptions() : LoadOptions.defaults().withHelpers(HELPERS).withEntryArgs(2);
    }
}
