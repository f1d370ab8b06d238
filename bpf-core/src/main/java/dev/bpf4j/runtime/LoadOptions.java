package dev.bpf4j.runtime;

import java.util.Objects;
import java.util.Set;

/**
 * Load-time choices: the helpers the program may call, how many argument registers are set at
 * entry (1 for kernel programs: r1 = ctx; 2 for the conformance suites: r1 = mem, r2 = length),
 * whether to write perf-map lines, and whether the legacy packet loads {@code LD ABS/IND} (socket
 * filters) are allowed; they read the run's packet ({@link RunContext#packetAddress()}), and, for
 * kernel programs whose ctx holds packet pointers (XDP, {@code __sk_buff}), where
 * ({@link PacketContext}; null: none or unknown, a hint that never changes an outcome).
 *
 * <p>{@link EntryRegisters} says what the entry registers hold, which decides how the verifier types them;
 * {@link ContextRules} (null: unknown) which ctx accesses the program type allows, as the kernel's
 * {@code is_valid_access}; {@link ReturnRange} (null: any) what r0 must hold at exit, the kernel's
 * {@code check_return_code}; {@code allowedHelpers} (null: every registered one) the helper ids the
 * program type may call, the kernel's {@code get_func_proto}. {@code object.ProgramType.applyTo} sets
 * the three from the program type table.
 */
public record LoadOptions(HelperRegistry helpers, int entryArgs, boolean perfMap, boolean legacyPacketLoads,
                          PacketContext packetContext, EntryRegisters entry, MapShapes maps, ContextRules ctxRules,
                          ReturnRange returnRange, Set<Integer> allowedHelpers) {
    public LoadOptions {
        Objects.requireNonNull(helpers);
        Objects.requireNonNull(entry);
        Objects.requireNonNull(maps);
        if (entryArgs < 0 || entryArgs > 5) throw new IllegalArgumentException("entryArgs must be 0-5");
        if (entry == EntryRegisters.CONTEXT && entryArgs != 1) throw new IllegalArgumentException("a kernel context is r1 alone: entryArgs must be 1");
        if (entry == EntryRegisters.MEMORY_BLOCK && entryArgs != 2) throw new IllegalArgumentException("a memory block is r1 and r2: entryArgs must be 2");
        allowedHelpers = allowedHelpers == null ? null : Set.copyOf(allowedHelpers);
    }

    /** Without a program type's exit range and helper list (any r0, any registered helper). */
    public LoadOptions(HelperRegistry helpers, int entryArgs, boolean perfMap, boolean legacyPacketLoads, PacketContext packetContext,
                       EntryRegisters entry, MapShapes maps, ContextRules ctxRules) {
        this(helpers, entryArgs, perfMap, legacyPacketLoads, packetContext, entry, maps, ctxRules, null, null);
    }

    /** Without context rules: any constant ctx offset in the first 4 KiB. */
    public LoadOptions(HelperRegistry helpers, int entryArgs, boolean perfMap, boolean legacyPacketLoads, PacketContext packetContext,
                       EntryRegisters entry, MapShapes maps) {
        this(helpers, entryArgs, perfMap, legacyPacketLoads, packetContext, entry, maps, null);
    }

    /** Without map shapes: map handles are plain numbers to the verifier. */
    public LoadOptions(HelperRegistry helpers, int entryArgs, boolean perfMap, boolean legacyPacketLoads, PacketContext packetContext,
                       EntryRegisters entry) {
        this(helpers, entryArgs, perfMap, legacyPacketLoads, packetContext, entry, MapShapes.NONE);
    }

    /** r1..r{entryArgs} are what the caller passes ({@link EntryRegisters#VALUES}). */
    public LoadOptions(HelperRegistry helpers, int entryArgs, boolean perfMap, boolean legacyPacketLoads, PacketContext packetContext) {
        this(helpers, entryArgs, perfMap, legacyPacketLoads, packetContext, EntryRegisters.VALUES);
    }

    /** Without a packet context, as before it existed. */
    public LoadOptions(HelperRegistry helpers, int entryArgs, boolean perfMap, boolean legacyPacketLoads) {
        this(helpers, entryArgs, perfMap, legacyPacketLoads, null);
    }

    /** Without legacy packet loads, as before they existed. */
    public LoadOptions(HelperRegistry helpers, int entryArgs, boolean perfMap) { this(helpers, entryArgs, perfMap, false); }

    public static LoadOptions defaults() { return new LoadOptions(HelperRegistry.EMPTY, 1, false, false); }

    public LoadOptions withHelpers(HelperRegistry h) { return new LoadOptions(h, entryArgs, perfMap, legacyPacketLoads, packetContext, entry, maps, ctxRules, returnRange, allowedHelpers); }
    /** {@code n} entry registers holding plain values. */
    public LoadOptions withEntryArgs(int n) { return new LoadOptions(helpers, n, perfMap, legacyPacketLoads, packetContext, EntryRegisters.VALUES, maps, ctxRules, returnRange, allowedHelpers); }
    public LoadOptions withPerfMap(boolean on) { return new LoadOptions(helpers, entryArgs, on, legacyPacketLoads, packetContext, entry, maps, ctxRules, returnRange, allowedHelpers); }
    public LoadOptions withLegacyPacketLoads(boolean on) { return new LoadOptions(helpers, entryArgs, perfMap, on, packetContext, entry, maps, ctxRules, returnRange, allowedHelpers); }
    public LoadOptions withPacketContext(PacketContext p) { return new LoadOptions(helpers, entryArgs, perfMap, legacyPacketLoads, p, entry, maps, ctxRules, returnRange, allowedHelpers); }
    /** The maps whose handles the program's constants may be (the object loader's map table). */
    public LoadOptions withMaps(MapShapes m) { return new LoadOptions(helpers, entryArgs, perfMap, legacyPacketLoads, packetContext, entry, m, ctxRules, returnRange, allowedHelpers); }
    /** The program type's ctx access rules (null: unknown, lenient). */
    public LoadOptions withCtxRules(ContextRules r) { return new LoadOptions(helpers, entryArgs, perfMap, legacyPacketLoads, packetContext, entry, maps, r, returnRange, allowedHelpers); }
    /** What the entry registers hold; CONTEXT sets entryArgs to 1, MEMORY_BLOCK to 2. */
    public LoadOptions withEntry(EntryRegisters e) {
        int n = e == EntryRegisters.CONTEXT ? 1 : e == EntryRegisters.MEMORY_BLOCK ? 2 : entryArgs;
        return new LoadOptions(helpers, n, perfMap, legacyPacketLoads, packetContext, e, maps, ctxRules, returnRange, allowedHelpers);
    }
    /** The r0 range the verifier enforces at exit (null: any). */
    public LoadOptions withReturnRange(ReturnRange r) { return new LoadOptions(helpers, entryArgs, perfMap, legacyPacketLoads, packetContext, entry, maps, ctxRules, r, allowedHelpers); }
    /** The helper ids the program type may call (null: every registered one). */
    public LoadOptions withAllowedHelpers(Set<Integer> ids) { return new LoadOptions(helpers, entryArgs, perfMap, legacyPacketLoads, packetContext, entry, maps, ctxRules, returnRange, ids); }
}
