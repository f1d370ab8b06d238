package dev.bpf4j.helpers;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.maps.ArrayMap;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.maps.BpfMapException;
import dev.bpf4j.maps.Cpus;
import dev.bpf4j.maps.Errno;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.Limits;

import java.util.List;

/**
 * Helpers that call back into the program ({@link HelperCall#callSubprogram}): {@code bpf_loop}
 * ({@code kernel/bpf/bpf_iter.c}) and {@code bpf_for_each_map_elem} ({@code arraymap.c},
 * {@code hashtab.c}). A callback returning non-zero stops the iteration (the kernel verifier only
 * lets it return 0 or 1). Every callback is a bpf-to-bpf call for the run's budget and depth.
 */
final class CallbackHelpers {
    private CallbackHelpers() {}

    /** BPF_MAX_LOOPS: the most iterations one bpf_loop may ask for. */
    static final long MAX_LOOPS = 1L << 23;

    static void register(HelperRegistry.Builder b, MapTable maps) {
        b.add(HelperIds.LOOP, "bpf_loop", (call, r1, r2, r3, r4, r5) -> loop(call, r1 & 0xffffffffL, r2, r3, r4));
        b.add(HelperIds.FOR_EACH_MAP_ELEM, "bpf_for_each_map_elem", (call, r1, r2, r3, r4, r5) -> {
            BpfMap m = maps.resolve(call, "bpf_for_each_map_elem", r1);
            MapType t = m.type();
            if (t == MapType.ARRAY || t == MapType.PERCPU_ARRAY) return forEachArray(call, (ArrayMap) m, r1, r2, r3, r4);
            if (t.isHash()) return forEachHash(call, m, r1, r2, r3, r4);
            throw call.badArgument("bpf_for_each_map_elem does not iterate " + m.describe()
                    + " (ARRAY, PERCPU_ARRAY and the HASH kinds only)");
        });
    }

    /** bpf_loop(nr_loops, callback_fn, callback_ctx, flags): callback(i, ctx); returns the iterations done. */
    static long loop(HelperCall call, long nrLoops, long fn, long ctx, long flags) {
        if (flags != 0) return -Errno.EINVAL;
        if (nrLoops > MAX_LOOPS) return -Errno.E2BIG;
        for (long i = 0; i < nrLoops; i++) {
            if (call.callSubprogram(fn, i, ctx, 0, 0, 0) != 0) return i + 1;
        }
        return nrLoops;
    }

    /** Every index; callback(map, &key, value of this CPU, ctx); counts the element that stopped it too. */
    private static long forEachArray(HelperCall call, ArrayMap m, long map, long fn, long ctx, long flags) {
        if (flags != 0) return -Errno.EINVAL;
        long key = call.scratch(4);
        int cpu = m.type() == MapType.PERCPU_ARRAY ? Cpus.current() : 0;
        long n = Integer.toUnsignedLong(m.maxEntries()), done = 0;
        for (long i = 0; i < n; i++) {
            long value = m.elementAddress((int) i, cpu);
            done++;
            NativeMemory.putInt(key, (int) i);
            if (call.callSubprogram(fn, map, key, value, ctx, 0) != 0) break;
        }
        return done;
    }

    /**
     * The keys present when the iteration starts, in get_next_key order; an element the callback
     * deleted before it was reached is skipped, one inserted meanwhile is not visited.
     */
    private static long forEachHash(HelperCall call, BpfMap m, long map, long fn, long ctx, long flags) {
        if (flags != 0) return -Errno.EINVAL;
        if (m.keySize() > Limits.STACK_SIZE) {
            throw call.badArgument("bpf_for_each_map_elem: " + m.describe() + " has " + m.keySize() + "-byte keys (at most 512)");
        }
        List<byte[]> keys;
        try {
            keys = m.keyList();
        } catch (BpfMapException e) {
            throw new BpfRuntimeException(ErrorKind.HELPER_FAILED, call.programName(), call.pc(), 0, "bpf_for_each_map_elem: " + e.getMessage());
        }
        long key = call.scratch(m.keySize());
        long done = 0;
        for (byte[] k : keys) {
            NativeMemory.write(key, k, 0, k.length);
            long value = m.programLookup(key); // this CPU's value for the per-CPU kinds
            if (value == 0) continue;
            done++;
            if (call.callSubprogram(fn, map, key, value, ctx, 0) != 0) break;
        }
        return done;
    }
}
