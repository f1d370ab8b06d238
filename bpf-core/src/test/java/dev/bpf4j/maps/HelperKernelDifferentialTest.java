package dev.bpf4j.maps;

import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The kernel as oracle for the program side: each step is a small program calling one map helper, run in
 * the kernel with BPF_PROG_TEST_RUN on a kernel map, and the same helper called in bpf4j on a bpf4j map
 * with a 16-byte "stack" (key at r10-4, value at r10-16). The r0s must agree at every step.
 */
class HelperKernelDifferentialTest {
    static Stream<MapDefinition> maps() {
        return Stream.of(
                new MapDefinition("hash", MapType.HASH, 4, 8, 4, 0),
                new MapDefinition("array", MapType.ARRAY, 4, 8, 4, 0),
                new MapDefinition("lru", MapType.LRU_HASH, 4, 8, 16384, 0),
                new MapDefinition("queue", MapType.QUEUE, 0, 8, 3, 0),
                new MapDefinition("stack", MapType.STACK, 0, 8, 3, 0));
    }

    /** A run whose memory is the fake stack and the map's regions. */
    private static final class Call implements HelperCall {
        final List<MemoryRegion> regions = new ArrayList<>();
        @Override public String programName() { return "diff"; }
        @Override public int pc() { return 0; }
        @Override public void exit(long r0) { }
        @Override public boolean accessible(long a, long size, boolean write) {
            for (MemoryRegion r : regions) if (size > 0 && size < 1 << 20 && r.allows(a, (int) size, write)) return true;
            return false;
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("maps")
    void helperResultsAgreeWithTheKernel(MapDefinition d) {
        Optional<KernelMap> km = KernelMap.create(d);
        Assumptions.assumeTrue(km.isPresent(), "bpf(BPF_MAP_CREATE) is not allowed here");
        long seed = 7L * d.name().hashCode();
        Random r = new Random(seed);
        long stack = NativeMemory.allocate(16), fp = stack + 16;
        try (KernelMap k = km.get(); MapTable table = MapTable.create(List.of(d))) {
            HelperRegistry reg = BpfHelpers.registry(table);
            long handle = table.handle(0);
            Call call = new Call();
            call.regions.add(new MemoryRegion("stack", stack, 16, true));
            call.regions.addAll(table.regions());
            boolean keyless = d.keySize() == 0;
            int keyRange = d.type().isLru() ? 6 : d.maxEntries() + 2;
            java.util.Set<Integer> kernelErrors = new java.util.TreeSet<>();
            for (int step = 0; step < 300; step++) {
                int key = r.nextInt(keyRange), value = r.nextInt(), op = r.nextInt(keyless ? 3 : 3);
                KernelProgram p = new KernelProgram();
                int ours;
                String what;
                NativeMemory.putInt(fp - 4, key);
                NativeMemory.putLong(fp - 16, value);
                if (!keyless && op == 0) {
                    int flags = r.nextInt(6);
                    what = "update key " + key + " flags " + flags;
                    p.stW(-4, key).stDw(-16, value).ldMap(1, k.fd()).movr(2, 10).add(2, -4).movr(3, 10).add(3, -16)
                            .mov(4, flags).call(HelperIds.MAP_UPDATE_ELEM).exit();
                    ours = (int) helper(reg, call, HelperIds.MAP_UPDATE_ELEM, handle, fp - 4, fp - 16, flags);
                } else if (!keyless && op == 1) {
                    what = "delete key " + key;
                    p.stW(-4, key).ldMap(1, k.fd()).movr(2, 10).add(2, -4).call(HelperIds.MAP_DELETE_ELEM).exit();
                    ours = (int) helper(reg, call, HelperIds.MAP_DELETE_ELEM, handle, fp - 4, 0, 0);
                } else if (!keyless) {
                    what = "lookup key " + key;
                    p.stW(-4, key).ldMap(1, k.fd()).movr(2, 10).add(2, -4).call(HelperIds.MAP_LOOKUP_ELEM)
                            .jeq(0, 0, 2).ldxW(0, 0, 0).exit().mov(0, -1).exit();
                    long ptr = helper(reg, call, HelperIds.MAP_LOOKUP_ELEM, handle, fp - 4, 0, 0);
                    ours = ptr == 0 ? -1 : NativeMemory.getInt(ptr);
                } else if (op == 0) {
                    int flags = r.nextInt(4);
                    what = "push flags " + flags;
                    p.stDw(-16, value).ldMap(1, k.fd()).movr(2, 10).add(2, -16).mov(3, flags).call(HelperIds.MAP_PUSH_ELEM).exit();
                    ours = (int) helper(reg, call, HelperIds.MAP_PUSH_ELEM, handle, fp - 16, flags, 0);
                } else {
                    int id = op == 1 ? HelperIds.MAP_POP_ELEM : HelperIds.MAP_PEEK_ELEM;
                    what = op == 1 ? "pop" : "peek";
                    p.ldMap(1, k.fd()).movr(2, 10).add(2, -16).call(id).jne(0, 0, 1).ldxW(0, 10, -16).exit();
                    long rr = helper(reg, call, id, handle, fp - 16, 0, 0);
                    ours = rr != 0 ? (int) rr : NativeMemory.getInt(fp - 16);
                }
                int theirs = p.run();
                if (theirs < 0 && theirs > -4096 && !what.startsWith("lookup")) kernelErrors.add(-theirs);
                assertThat(ours).as("seed %d step %d %s: %s", seed, step, d.name(), what).isEqualTo(theirs);
            }
            // the sequence must reach the interesting errors (EEXIST/ENOENT/E2BIG/EINVAL...), not only successes
            assertThat(kernelErrors).as("errnos the kernel returned").hasSizeGreaterThanOrEqualTo(3);
        } finally {
            NativeMemory.free(stack);
        }
    }

    /**
     * A program's update of a per-CPU array goes through array_map_update_elem, which lets BPF_F_LOCK
     * past the flags check: a key past the end is -E2BIG, one inside is -EINVAL (no bpf_spin_lock in a
     * per-CPU value), not -EINVAL for both as the Java side's bpf_percpu_array_update (fuzz seed 4872).
     */
    @org.junit.jupiter.api.Test
    void perCpuArrayUpdateWithLockChecksTheKeyFirst() {
        MapDefinition d = new MapDefinition("pcpu", MapType.PERCPU_ARRAY, 4, 8, 4, 0);
        Optional<KernelMap> km = KernelMap.create(d);
        Assumptions.assumeTrue(km.isPresent(), "bpf(BPF_MAP_CREATE) is not allowed here");
        long stack = NativeMemory.allocate(16), fp = stack + 16;
        try (KernelMap k = km.get(); MapTable table = MapTable.create(List.of(d))) {
            HelperRegistry reg = BpfHelpers.registry(table);
            Call call = new Call();
            call.regions.add(new MemoryRegion("stack", stack, 16, true));
            call.regions.addAll(table.regions());
            for (int key : new int[] {1, 4, 9}) {
                for (int flags : new int[] {4, 5, 6, 0, 1, 2, 3}) {
                    NativeMemory.putInt(fp - 4, key);
                    NativeMemory.putLong(fp - 16, 7);
                    KernelProgram p = new KernelProgram();
                    p.stW(-4, key).stDw(-16, 7).ldMap(1, k.fd()).movr(2, 10).add(2, -4).movr(3, 10).add(3, -16)
                            .mov(4, flags).call(HelperIds.MAP_UPDATE_ELEM).exit();
                    int ours = (int) helper(reg, call, HelperIds.MAP_UPDATE_ELEM, table.handle(0), fp - 4, fp - 16, flags);
                    assertThat(ours).as("key %d flags %d", key, flags).isEqualTo(p.run());
                }
            }
        } finally {
            NativeMemory.free(stack);
        }
    }

    private static long helper(HelperRegistry reg, HelperCall call, int id, long r1, long r2, long r3, long r4) {
        return reg.lookup(id).orElseThrow().body().call(call, r1, r2, r3, r4, 0);
    }
}
