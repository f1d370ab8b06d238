package dev.bpf4j.runtime;

import java.util.Objects;

/**
 * Load-time choices: the helpers the program may call and how many argument registers are set at
 * entry (1 for kernel programs: r1 = ctx; 2 for the conformance suites: r1 = mem, r2 = length).
 */
public record LoadOptions(HelperRegistry helpers, int entryArgs, boolean perfMap) {
    public LoadOptions {
        Objects.requireNonNull(helpers);
        if (entryArgs < 0 || entryArgs > 5) throw new IllegalArgumentException("entryArgs must be 0-5");
    }

    public static LoadOptions defaults() { return new LoadOptions(HelperRegistry.EMPTY, 1, false); }

    public LoadOptions withHelpers(HelperRegistry h) { return new LoadOptions(h, entryArgs, perfMap); }
    public LoadOptions withEntryArgs(int n) { return new LoadOptions(helpers, n, perfMap); }
    public LoadOptions withPerfMap(boolean on) { return new LoadOptions(helpers, entryArgs, on); }
}
