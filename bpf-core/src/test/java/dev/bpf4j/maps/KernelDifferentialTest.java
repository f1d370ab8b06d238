package dev.bpf4j.maps;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Linux kernel as oracle: the same seeded sequence of syscall-side operations on a real kernel map
 * (bpf(2)) and on the bpf4j map must give the same errno for every step and the same values. Skips
 * where bpf() is refused.
 */
class KernelDifferentialTest {
    static Stream<MapDefinition> keyedMaps() {
        return Stream.of(
                new MapDefinition("hash", MapType.HASH, 4, 8, 8, 0),
                new MapDefinition("hash5", MapType.HASH, 4, 5, 8, 0),
                new MapDefinition("array", MapType.ARRAY, 4, 8, 8, 0),
                new MapDefinition("array5", MapType.ARRAY, 4, 5, 8, 0),
                new MapDefinition("pcpu_array", MapType.PERCPU_ARRAY, 4, 8, 8, 0),
                new MapDefinition("pcpu_hash", MapType.PERCPU_HASH, 4, 8, 8, 0),
                new MapDefinition("lru", MapType.LRU_HASH, 4, 8, 16384, 0),
                new MapDefinition("queue", MapType.QUEUE, 0, 8, 4, 0),
                new MapDefinition("stack", MapType.STACK, 0, 8, 4, 0));
    }

    private static KernelMap kernel(MapDefinition d) {
        Optional<KernelMap> k = KernelMap.create(d);
        Assumptions.assumeTrue(k.isPresent(), "bpf(BPF_MAP_CREATE) is not allowed here");
        return k.get();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("keyedMaps")
    void randomOperationsAgreeWithTheKernel(MapDefinition d) {
        long seed = d.name().hashCode() * 31L + 20261202;
        Random r = new Random(seed);
        boolean keyless = d.keySize() == 0, hash = d.type().isHash();
        // the LRU map gets far fewer keys than entries (more than the kernel's per-CPU free-list batches on
        // many CPUs), so the kernel never evicts and results are comparable
        int keyRange = d.type().isLru() ? 12 : d.maxEntries() + 3;
        try (KernelMap k = kernel(d); BpfMap m = Maps.create(d)) {
            int[] err = new int[1];
            for (int step = 0; step < 3000; step++) {
                byte[] key = keyless ? new byte[0] : Bytes.u32(r.nextInt(keyRange));
                String where = "seed " + seed + " step " + step + " " + d.name() + " key " + Arrays.toString(key);
                switch (r.nextInt(keyless ? 4 : 5)) {
                    case 0: {
                        byte[] v = new byte[k.valueBytes];
                        r.nextBytes(v);
                        if (d.type().isPercpu()) for (int c = 0; c < Cpus.possible(); c++) Arrays.fill(v, c * 8 + d.valueSize(), c * 8 + 8, (byte) 0);
                        long flags = r.nextInt(6);
                        assertThat(errno(() -> m.update(key, v, flags))).as(where + " update flags " + flags).isEqualTo(-k.update(key, v, flags));
                        break;
                    }
                    case 1: {
                        byte[] kv = k.lookup(key, err);
                        Optional<byte[]> mv = m.lookup(key);
                        assertThat(mv.isPresent()).as(where + " lookup, kernel " + Errno.name(err[0])).isEqualTo(kv != null);
                        if (kv != null) assertThat(mv.get()).as(where + " lookup value").isEqualTo(kv);
                        break;
                    }
                    case 2:
                        assertThat(errno(() -> m.delete(key))).as(where + " delete").isEqualTo(-k.delete(key));
                        break;
                    case 3: {
                        byte[] kv = k.lookupAndDelete(key, err);
                        byte[][] mv = new byte[1][];
                        int e = errno(() -> mv[0] = m.lookupAndDelete(key));
                        assertThat(e).as(where + " lookup_and_delete").isEqualTo(-err[0]);
                        if (kv != null) assertThat(mv[0]).isEqualTo(kv);
                        break;
                    }
                    default: {
                        byte[] from = r.nextInt(4) == 0 ? null : key;
                        byte[] kn = k.nextKey(from, err);
                        int e = errno(() -> {
                            if (m.nextKey(from).isEmpty()) throw new BpfMapException(Errno.ENOENT, "end"); // empty is -ENOENT
                        });
                        if (!hash) { // hash iteration order is the implementation's own
                            assertThat(e).as(where + " get_next_key").isEqualTo(-err[0]);
                            if (kn != null) assertThat(m.nextKey(from).orElse(null)).isEqualTo(kn);
                        }
                    }
                }
            }
            if (!keyless) assertThat(keys(m)).as(d.name() + " final keys").isEqualTo(kernelKeys(k));
        }
    }

    private static int errno(Runnable op) {
        try {
            op.run();
            return 0;
        } catch (BpfMapException e) {
            return e.errno();
        }
    }

    private static Set<Integer> keys(BpfMap m) {
        Set<Integer> out = new HashSet<>();
        for (byte[] key : m.keys()) out.add(Bytes.u32(key));
        return out;
    }

    private static Set<Integer> kernelKeys(KernelMap k) {
        Set<Integer> out = new HashSet<>();
        int[] err = new int[1];
        byte[] key = k.nextKey(null, err);
        while (key != null) {
            out.add(Bytes.u32(key));
            key = k.nextKey(key, err);
        }
        return out;
    }

    @Test void accessFlagsAndFreezeAgreeWithTheKernel() {
        for (int flags : new int[] {MapFlags.BPF_F_RDONLY, MapFlags.BPF_F_WRONLY, 0}) {
            for (MapType t : new MapType[] {MapType.HASH, MapType.ARRAY}) {
                MapDefinition d = new MapDefinition("acc", t, 4, 8, 4, flags);
                try (KernelMap k = kernel(d); BpfMap m = Maps.create(d)) {
                    for (boolean frozen : new boolean[] {false, true}) {
                        if (frozen) {
                            assertThat(errno(m::freeze)).isEqualTo(-k.freeze());
                            assertThat(errno(m::freeze)).as("second freeze").isEqualTo(-k.freeze());
                        }
                        String where = d + (frozen ? " frozen" : "");
                        byte[] key = Bytes.u32(1), v = Bytes.u64(9);
                        int[] err = new int[1];
                        assertThat(errno(() -> m.update(key, v, 0))).as(where + " update").isEqualTo(-k.update(key, v, 0));
                        k.lookup(key, err);
                        assertThat(errno(() -> m.lookup(key).orElseThrow(() -> new BpfMapException(Errno.ENOENT, "none"))))
                                .as(where + " lookup").isEqualTo(-err[0]);
                        k.nextKey(null, err);
                        assertThat(errno(() -> m.nextKey(null))).as(where + " next").isEqualTo(err[0] == -Errno.ENOENT ? 0 : -err[0]);
                        assertThat(errno(() -> m.delete(key))).as(where + " delete").isEqualTo(-k.delete(key));
                    }
                }
            }
        }
    }

    @Test void creationChecksAgreeWithTheKernel() {
        Assumptions.assumeTrue(KernelMap.createResult(new MapDefinition("probe", MapType.ARRAY, 4, 4, 1, 0)) == 0,
                "bpf(BPF_MAP_CREATE) is not allowed here");
        List<MapDefinition> defs = new ArrayList<>(List.of(
                new MapDefinition("a", MapType.ARRAY, 8, 8, 1, 0),
                new MapDefinition("a", MapType.ARRAY, 4, 0, 1, 0),
                new MapDefinition("a", MapType.ARRAY, 4, 8, 0, 0),
                new MapDefinition("a", MapType.ARRAY, 4, 8, 1, MapFlags.BPF_F_RDONLY_PROG | MapFlags.BPF_F_WRONLY_PROG),
                new MapDefinition("a", MapType.ARRAY, 4, 8, 1, MapFlags.BPF_F_NO_PREALLOC),
                new MapDefinition("a", MapType.ARRAY, 4, 8, 1, MapFlags.BPF_F_RDONLY_PROG),
                new MapDefinition("pa", MapType.PERCPU_ARRAY, 4, 40000, 1, 0),
                new MapDefinition("h", MapType.HASH, 0, 8, 1, 0),
                new MapDefinition("h", MapType.HASH, 4, 0, 1, 0),
                new MapDefinition("h", MapType.HASH, 4, 8, 0, 0),
                new MapDefinition("h", MapType.HASH, 4, 8, 1, MapFlags.BPF_F_NO_COMMON_LRU),
                new MapDefinition("h", MapType.HASH, 4, 8, 1, MapFlags.BPF_F_MMAPABLE),
                new MapDefinition("ph", MapType.PERCPU_HASH, 4, 40000, 1, 0),
                new MapDefinition("l", MapType.LRU_HASH, 4, 8, 16, MapFlags.BPF_F_NO_PREALLOC),
                new MapDefinition("l", MapType.LRU_HASH, 4, 8, 16, MapFlags.BPF_F_NO_COMMON_LRU),
                new MapDefinition("q", MapType.QUEUE, 4, 8, 1, 0),
                new MapDefinition("q", MapType.QUEUE, 0, 0, 1, 0),
                new MapDefinition("q", MapType.STACK, 0, 8, 0, 0),
                new MapDefinition("q", MapType.STACK, 0, 8, 1, MapFlags.BPF_F_NO_PREALLOC),
                new MapDefinition("r", MapType.RINGBUF, 0, 0, 4096, 0),
                new MapDefinition("r", MapType.RINGBUF, 0, 0, 4096 * 3, 0),
                new MapDefinition("r", MapType.RINGBUF, 0, 0, 2048, 0),
                new MapDefinition("r", MapType.RINGBUF, 4, 0, 4096, 0),
                new MapDefinition("r", MapType.RINGBUF, 0, 0, 4096, MapFlags.BPF_F_RDONLY_PROG),
                new MapDefinition("p", MapType.PROG_ARRAY, 4, 8, 4, 0),
                new MapDefinition("p", MapType.PROG_ARRAY, 4, 4, 4, 0),
                new MapDefinition("s", MapType.STACK_TRACE, 4, 12, 4, 0),
                new MapDefinition("s", MapType.STACK_TRACE, 4, 16, 4, 0),
                new MapDefinition("s", MapType.STACK_TRACE, 8, 16, 4, 0)));
        for (MapDefinition d : defs) {
            int ours = errno(() -> Maps.create(d).close());
            assertThat(ours).as("create %s", d).isEqualTo(-KernelMap.createResult(d));
        }
    }
}
