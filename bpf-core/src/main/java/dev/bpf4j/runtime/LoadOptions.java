package dev.bpf4j.runtime;

import java.util.Objects;

/**
 * Load-time choices: the helpers the program may call, how many argument registers are set at
 * entry (1 for kernel programs: r1 = ctx; 2 for the conformance suites: r1 = mem, r2 = length),
 * whether to write perf-map lines, and whether the legacy packet loads {@code LD ABS/IND} (socket
 * filters) are allowed; they read the run's packet ({@link RunContext#packetAddress()}), and, for
 * kernel programs whose ctx holds packet pointers (XDP, {@code __sk_buff}), where
 * ({@link PacketContext}; null: none or unknown, a hint that never changes an outcome).
 */
public record LoadOptions(HelperRegistry helpers, int entryArgs, boolean perfMap, boolean legacyPacketLoads,
                          PacketContext packetContext) {
    public LoadOptions {
        Objects.requireNonNull(helpers);
        if (entryArgs < 0 || entryArgs > 5) throw new IllegalArgumentException("entryArgs must be 0-5");
    }

    /** Without a packet context, as before it existed. */
    public LoadOptions(HelperRegistry helpers, int entryArgs, boolean perfMap, boolean legacyPacketLoads) {
        this(helpers, entryArgs, perfMap, legacyPacketLoads, null);
    }

    /** Without legacy packet loads, as before they existed. */
    public LoadOptions(HelperRegistry helpers, int entryArgs, boolean perfMap) { this(helpers, entryArgs, perfMap, false); }

    public static LoadOptions defaults() { return new LoadOptions(HelperRegistry.EMPTY, 1, false, false); }

    public LoadOptions withHelpers(HelperRegistry h) { return new LoadOptions(h, entryArgs, perfMap, legacyPacketLoads, packetContext); }
    public LoadOptions withEntryArgs(int n) { return new LoadOptions(helpers, n, perfMap, legacyPacketLoads, packetContext); }
    public LoadOptions withPerfMap(boolean on) { return new LoadOptions(helpers, entryArgs, on, legacyPacketLoads, packetContext); }
    public LoadOptions withLegacyPacketLoads(boolean on) { return new LoadOptions(helpers, entryArgs, perfMap, on, packetContext); }
    public LoadOptions withPacketContext(PacketContext p) { return new LoadOptions(helpers, entryArgs, perfMap, legacyPacketLoads, p); }
}
