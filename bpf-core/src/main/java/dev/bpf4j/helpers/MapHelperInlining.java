package dev.bpf4j.helpers;

import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.LookupInlining;
import dev.bpf4j.runtime.Limits;
import dev.bpf4j.runtime.HelperSpec;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.maps.Cpus;
import dev.bpf4j.maps.Errno;
import dev.bpf4j.maps.MapFlags;
import dev.bpf4j.program.CallSiteConstants;
import dev.bpf4j.verifier.InsnAux;

/**
 * The off-heap-frame engines' form (interpreter, JVM bytecode) of the map helpers the JIT inlines ({@code InlineArrayLookup},
 * {@code InlineHashLookup}, {@code InlineArrayUpdate}): at a {@code call bpf_map_lookup_elem} whose
 * r1 is a constant ARRAY, PERCPU_ARRAY or hash map, or a {@code call bpf_map_update_elem} whose r1
 * is a constant array the helper lets programs update in place ({@link CallSiteConstants}, the same
 * sites as the JIT's; the helper's {@link LookupInlining} says which maps), the engine computes the
 * answer itself instead of calling the helper's Java body, which resolves the handle, checks every
 * pointer against every region and allocates the helper's view of the run. The common case only:
 * the key (and value) inside the current frame, the map open, an update's flags {@code BPF_ANY} or
 * {@code BPF_EXIST}. Anything else returns false and the engine calls the helper, which stays the
 * definition: the same r0, the same bytes written, the same errors.
 */
public final class MapHelperInlining {
    private MapHelperInlining() {}

    /** {@code -Dbpf4j.interp.inlineMapHelpers=false} calls the helpers everywhere (read at each load, for A/B timing). */
    public static boolean enabled() { return !"false".equals(System.getProperty("bpf4j.interp.inlineMapHelpers")); }

    /**
     * The map of each helper call of {@code insns} that runs inline, by pc; null elsewhere. With the
     * verifier's facts, only where the key (and an update's value) is a stack pointer: the inline
     * forms read them from the current frame, where no other pointer may reach.
     */
    public static LookupInlining.Target[] targets(Insn[] insns, HelperSpec[] helpers, int[] functionStarts, InsnAux aux) {
        LookupInlining.Target[] out = new LookupInlining.Target[insns.length];
        if (!enabled()) return out;
        CallSiteConstants r1 = null;
        for (int pc = 0; pc < insns.length; pc++) {
            HelperSpec h = helpers[pc];
            if (h == null || h.lookupInlining() == null || (h.id() != HelperIds.MAP_LOOKUP_ELEM && h.id() != HelperIds.MAP_UPDATE_ELEM)) continue;
            if (r1 == null) r1 = CallSiteConstants.of(insns, functionStarts);
            if (!r1.knows(pc)) continue;
            LookupInlining.Target t = h.lookupInlining().targetFor(r1.r1(pc)).orElse(null);
            boolean update = h.id() == HelperIds.MAP_UPDATE_ELEM;
            if (aux != null && (!aux.argTouchesFrames(pc, 2) || (update && !aux.argTouchesFrames(pc, 3)))) continue;
            if (update ? t instanceof LookupInlining.Elements e && e.updatable() : t != null) out[pc] = t;
        }
        return out;
    }

    /**
     * Runs an inline-able {@code bpf_map_update_elem} ({@code update}) or {@code bpf_map_lookup_elem} on
     * map {@code t} over the register file {@code r} (r0, r2-r4, r10 = the current frame's top): true when
     * it set r0, false to call the helper.
     */
    public static boolean inline(boolean update, LookupInlining.Target t, long[] r) {
        if (update) return update((LookupInlining.Elements) t, r);
        return t instanceof LookupInlining.Elements e ? lookup(e, r) : lookup((LookupInlining.HashBuckets) t, r);
    }

    /** {@code r0 = bpf_map_lookup_elem(array, r2)} when the key is in the current frame and the map open; else false. */
    private static boolean lookup(LookupInlining.Elements e, long[] r) {
        long key = r[2];
        if (!inFrame(r, key, 4) || closed(e)) return false;
        int i = NativeMemory.getInt(key);
        r[0] = Integer.compareUnsigned(i, e.maxEntries()) < 0 ? slot(e, i) : 0;
        return true;
    }

    /** {@code r0 = bpf_map_lookup_elem(hash, r2)} when the key is in the current frame and the map open: the map's own lookup; else false. */
    private static boolean lookup(LookupInlining.HashBuckets h, long[] r) {
        long key = r[2];
        if (!inFrame(r, key, h.keySize()) || closed(h)) return false;
        r[0] = h.javaLookup().applyAsLong(key);
        return true;
    }

    /**
     * {@code r0 = bpf_map_update_elem(map, r2, r3, r4)} when the flags are {@code BPF_ANY} or
     * {@code BPF_EXIST}, key and value lie in the current frame and the map is open; else false.
     * As {@code array_map_update_elem}: an index past the end answers {@code -E2BIG}, and nothing is written.
     */
    private static boolean update(LookupInlining.Elements e, long[] r) {
        long key = r[2], value = r[3];
        if ((r[4] & ~MapFlags.BPF_EXIST) != 0 || !inFrame(r, key, 4) || !inFrame(r, value, e.valueSize()) || closed(e)) return false;
        int i = NativeMemory.getInt(key);
        if (Integer.compareUnsigned(i, e.maxEntries()) >= 0) {
            r[0] = -Errno.E2BIG;
            return true;
        }
        NativeMemory.copy(value, slot(e, i), e.valueSize());
        r[0] = 0;
        return true;
    }

    /** {@code [a, a + size)} inside the current frame, {@code [r10 - 512, r10)}. */
    private static boolean inFrame(long[] r, long a, int size) {
        long o = a - (r[10] - Limits.STACK_SIZE);
        return o >= 0 && o <= Limits.STACK_SIZE - size;
    }

    /** The map's open word is 0: the helper refuses the map. */
    private static boolean closed(LookupInlining.Target t) { return NativeMemory.getLong(t.openWord()) == 0; }

    /** Element {@code i}'s value a program sees: this CPU's in a per-CPU array, as the helper ({@code ArrayMap}). */
    private static long slot(LookupInlining.Elements e, int i) {
        int cpu = e.cpus() == 1 ? 0 : Cpus.current();
        return e.valuesBase() + ((long) i * e.cpus() + (cpu < e.cpus() ? cpu : 0)) * e.stride();
    }
}
