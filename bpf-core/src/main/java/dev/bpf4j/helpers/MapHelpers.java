package dev.bpf4j.helpers;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.maps.ArrayMap;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.maps.BpfMapException;
import dev.bpf4j.maps.Cpus;
import dev.bpf4j.maps.HashTabMap;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.SpinLock;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.maps.MapOfMaps;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.maps.QueueStackMap;
import dev.bpf4j.runtime.LookupInlining;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.NativeMemory;

import java.util.Optional;

/**
 * {@code bpf_map_lookup_elem/update_elem/delete_elem}, {@code bpf_map_push/pop/peek_elem} and
 * {@code bpf_spin_lock/unlock} (with a timeout: bpf4j cannot prove a lock is always released). r1 is a
 * map handle of the {@link MapTable}; key and value pointers are checked against the run's memory for
 * {@code key_size}/{@code value_size} bytes. Map types the kernel verifier would refuse for a helper
 * (e.g. lookup in a ring buffer) end the run with BAD_HELPER_ARGUMENT, the run-time form of that refusal.
 */
final class MapHelpers {
    private MapHelpers() {}

    static void register(HelperRegistry.Builder b, MapTable maps) {
        b.addForward(HelperIds.MAP_LOOKUP_ELEM, "bpf_map_lookup_elem", (call, r1, r2, r3, r4, r5) -> {
            BpfMap m = maps.resolve(call, "bpf_map_lookup_elem", r1);
            if (m instanceof MapOfMaps outer) return innerLookup(call, maps, outer, r2);
            keyed(call, m, "bpf_map_lookup_elem");
            call.checkArgument(2, "bpf_map_lookup_elem key (r2)", r2, m.keySize(), false);
            return m.programLookup(r2);
        }, handle -> inlineTarget(maps, handle));
        b.addForward(HelperIds.MAP_LOOKUP_PERCPU_ELEM, "bpf_map_lookup_percpu_elem", (call, r1, r2, r3, r4, r5) -> {
            BpfMap m = maps.resolve(call, "bpf_map_lookup_percpu_elem", r1);
            MapType t = m.type();
            if (!(t == MapType.PERCPU_ARRAY || t == MapType.PERCPU_HASH || t == MapType.LRU_PERCPU_HASH)) {
                throw call.badArgument("bpf_map_lookup_percpu_elem cannot be used with " + m.describe() + " (per-CPU array and hash maps only)");
            }
            call.checkArgument("bpf_map_lookup_percpu_elem key (r2)", r2, m.keySize(), false);
            return m.programLookupPercpu(r2, r3 & 0xffffffffL); // u32 cpu; >= nr_cpu_ids gives NULL
        });
        b.addForward(HelperIds.MAP_UPDATE_ELEM, "bpf_map_update_elem", (call, r1, r2, r3, r4, r5) -> {
            BpfMap m = writable(call, keyed(call, maps, "bpf_map_update_elem", r1), "bpf_map_update_elem");
            call.checkArgument(2, "bpf_map_update_elem key (r2)", r2, m.keySize(), false);
            call.checkArgument(3, "bpf_map_update_elem value (r3)", r3, m.valueSize(), false);
            try {
                return m.programUpdate(r2, r3, r4);
            } catch (BpfMapException e) { // BPF_F_LOCK on a lock never released
                throw new BpfRuntimeException(ErrorKind.HELPER_FAILED, call.programName(), call.pc(), 0, "bpf_map_update_elem: " + e.getMessage());
            }
        }, handle -> inlineTarget(maps, handle).filter(t -> t instanceof LookupInlining.Elements a && a.updatable() || writable(t)));
        b.add(HelperIds.SPIN_LOCK, "bpf_spin_lock", (call, r1, r2, r3, r4, r5) -> {
            lockArgument(call, maps, "bpf_spin_lock", r1);
            if (!SpinLock.tryLock(r1)) {
                throw new BpfRuntimeException(ErrorKind.HELPER_FAILED, call.programName(), call.pc(), r1, String.format(
                        "bpf_spin_lock: lock at 0x%x held for more than %d ms (a program exited without bpf_spin_unlock?)",
                        r1, SpinLock.TIMEOUT_NANOS / 1_000_000));
            }
            return 0;
        }, spinLocks(maps));
        b.add(HelperIds.SPIN_UNLOCK, "bpf_spin_unlock", (call, r1, r2, r3, r4, r5) -> {
            lockArgument(call, maps, "bpf_spin_unlock", r1);
            SpinLock.unlock(r1);
            return 0;
        }, spinLocks(maps));
        b.addForward(HelperIds.MAP_DELETE_ELEM, "bpf_map_delete_elem", (call, r1, r2, r3, r4, r5) -> {
            BpfMap m = writable(call, keyed(call, maps, "bpf_map_delete_elem", r1), "bpf_map_delete_elem");
            call.checkArgument(2, "bpf_map_delete_elem key (r2)", r2, m.keySize(), false);
            return m.programDelete(r2);
        }, handle -> inlineTarget(maps, handle).filter(MapHelpers::writable));
        b.addForward(HelperIds.MAP_PUSH_ELEM, "bpf_map_push_elem", (call, r1, r2, r3, r4, r5) -> {
            QueueStackMap q = queue(call, maps, "bpf_map_push_elem", r1);
            writable(call, q, "bpf_map_push_elem");
            call.checkArgument(2, "bpf_map_push_elem value (r2)", r2, q.valueSize(), false);
            return q.push(NativeMemory.read(r2, q.valueSize()), r3);
        });
        b.addForward(HelperIds.MAP_POP_ELEM, "bpf_map_pop_elem", (call, r1, r2, r3, r4, r5) -> take(call, maps, "bpf_map_pop_elem", r1, r2, true));
        b.addForward(HelperIds.MAP_PEEK_ELEM, "bpf_map_peek_elem", (call, r1, r2, r3, r4, r5) -> take(call, maps, "bpf_map_peek_elem", r1, r2, false));
    }

    /** The layout of the ARRAY, PERCPU_ARRAY, HASH or PERCPU_HASH map behind {@code handle}, for a JIT that inlines the lookup (or an array's update). */
    private static Optional<LookupInlining.Target> inlineTarget(MapTable maps, long handle) {
        return maps.find(handle).map(m -> {
            if (m instanceof ArrayMap a) {
                MapDefinition d = a.definition();
                return new LookupInlining.Elements(a.valuesBase(), a.maxEntries(), a.stride(), a.keySize(), a.openWord(),
                        a.cpus(), a.cpus() == 1 ? 0 : Cpus.currentFunction(), a.valueSize(), !d.hasSpinLock() && !d.readOnlyForPrograms());
            }
            return m instanceof HashTabMap h ? h.inlineLayout() : null;
        });
    }

    /** Where a JIT may take and release locks natively: the maps' lock words as they are when it compiles (any other address: the helper). */
    private static LookupInlining spinLocks(MapTable maps) {
        return new LookupInlining() {
            @Override public Optional<LookupInlining.Target> targetFor(long r1) { return Optional.empty(); }
            @Override public java.util.List<LookupInlining.LockValues> lockValues() { return maps.lockValues(); }
        };
    }

    /** A hash map whose updates and deletes a JIT may run natively ({@link LookupInlining.HashWrites}). */
    private static boolean writable(LookupInlining.Target t) { return t instanceof LookupInlining.HashBuckets h && h.writes() != null; }

    /** Lookup in a map-in-map: the inner map's handle in this table, or NULL (0) for an empty slot. */
    private static long innerLookup(HelperCall call, MapTable maps, MapOfMaps outer, long key) {
        call.checkArgument(2, "bpf_map_lookup_elem key (r2)", key, outer.keySize(), false);
        try {
            BpfMap inner = outer.programInner(key);
            return inner == null ? 0 : maps.handleFor(inner);
        } catch (BpfMapException e) {
            throw new BpfRuntimeException(ErrorKind.HELPER_FAILED, call.programName(), call.pc(), 0, "bpf_map_lookup_elem: " + e.getMessage());
        }
    }

    /**
     * The lock must be the {@code struct bpf_spin_lock} of a map value (the kernel verifier's process_spin_lock:
     * the map's BTF value type has one, at exactly that offset): checked here at run time.
     */
    private static void lockArgument(HelperCall call, MapTable maps, String helper, long lock) {
        call.checkArgument(1, helper + " lock (r1)", lock, 4, true);
        if ((lock & 3) != 0) throw call.badArgument(String.format("%s: lock (r1) 0x%x is not 4-byte aligned", helper, lock));
        if (!maps.isSpinLock(lock)) {
            throw call.badArgument(String.format("%s: lock (r1) 0x%x is not the bpf_spin_lock of a map value (the map's BTF value"
                    + " type needs a 'struct bpf_spin_lock' member, and r1 must point at it)", helper, lock));
        }
    }

    private static long take(HelperCall call, MapTable maps, String helper, long r1, long r2, boolean delete) {
        QueueStackMap q = queue(call, maps, helper, r1);
        if (delete) writable(call, q, helper);
        call.checkArgument(2, helper + " value (r2)", r2, q.valueSize(), true);
        byte[] out = new byte[q.valueSize()];
        int r = q.get(out, delete);
        NativeMemory.write(r2, out, 0, out.length); // zeroes when empty, as the kernel's memset
        return r;
    }

    /** Lookup/update/delete take array and hash maps only; map-in-map only lookup (check_map_func_compatibility). */
    private static BpfMap keyed(HelperCall call, MapTable maps, String helper, long handle) {
        return keyed(call, maps.resolve(call, helper, handle), helper);
    }

    private static BpfMap keyed(HelperCall call, BpfMap m, String helper) {
        MapType t = m.type();
        if (!(t.isHash() || t == MapType.ARRAY || t == MapType.PERCPU_ARRAY)) {
            throw call.badArgument(helper + " cannot be used with " + m.describe());
        }
        return m;
    }

    private static QueueStackMap queue(HelperCall call, MapTable maps, String helper, long handle) {
        return maps.resolve(call, helper, handle, QueueStackMap.class, "QUEUE or STACK");
    }

    /** BPF_F_RDONLY_PROG maps refuse program writes ("write into map forbidden" in the kernel verifier). */
    private static <M extends BpfMap> M writable(HelperCall call, M m, String helper) {
        if (m.definition().readOnlyForPrograms()) throw call.badArgument(helper + ": " + m.describe() + " is read-only for programs (BPF_F_RDONLY_PROG)");
        return m;
    }
}
