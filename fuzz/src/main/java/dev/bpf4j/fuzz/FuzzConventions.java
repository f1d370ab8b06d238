package dev.bpf4j.fuzz;

import dev.bpf4j.conformance.SuiteHelpers;
import dev.bpf4j.runtime.EntryRegisters;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;

import java.util.List;

/**
 * How fuzzed programs are loaded and run: the conformance suites' convention (r1 = memory block,
 * r2 = its length, the helpers of {@link SuiteHelpers}), so that every reproducer runs as it is under
 * {@code bpf4j run} and {@code bpf4j conformance}, and a small run budget.
 */
public final class FuzzConventions {
    private FuzzConventions() {}

    public static final int UNWIND = SuiteHelpers.UNWIND;

    /** The helper ids a fuzzed program may call. */
    public static final List<Integer> HELPERS = SuiteHelpers.IDS;

    /** Back-edges plus calls per run: small, so that runaway loops end quickly and identically. */
    public static final long BUDGET = 2_000;

    public static final HelperRegistry REGISTRY = SuiteHelpers.REGISTRY;

    /** r1 = the memory block, r2 = its length: the verifier keeps r1 a pointer whose bits must not escape. */
    public static LoadOptions loadOptions() {
        return LoadOptions.defaults().withHelpers(REGISTRY).withEntry(EntryRegisters.MEMORY_BLOCK);
    }

    /** {@code options} for one case: without a memory block r1 and r2 are the plain value 0, as the conformance runner loads it. */
    static LoadOptions forCase(LoadOptions options, boolean hasMemory) {
        return !hasMemory && options.entry() == EntryRegisters.MEMORY_BLOCK ? options.withEntryArgs(2) : options;
    }
}
