package dev.bpf4j.maps;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The targets of {@code bpf_redirect_map} (kernel/bpf/devmap.c, cpumap.c, net/xdp/xskmap.c), with Linux's
 * creation checks and value layouts. Keys are u32.
 * <ul>
 * <li>{@code DEVMAP} (array) / {@code DEVMAP_HASH}: value {@code u32 ifindex} or {@code struct bpf_devmap_val}
 * (ifindex, prog fd; 8 bytes). The ifindex must name an interface of this machine
 * ({@code /sys/class/net/* /ifindex}), else {@code -EINVAL} as {@code dev_get_by_index} failing; a program fd
 * (> 0) is {@code -EINVAL}: bpf4j has no program fds. A lookup reads back ifindex and prog id 0.</li>
 * <li>{@code CPUMAP}: value {@code u32 qsize} or {@code struct bpf_cpumap_val}; qsize over 16384 is
 * {@code -EOVERFLOW}, a CPU that is not possible {@code -ENODEV}, qsize 0 empties the slot.</li>
 * <li>{@code XSKMAP}: values are AF_XDP socket fds; bpf4j has no sockets, so updates are
 * {@code -EOPNOTSUPP} (Linux: the fd must be an AF_XDP socket) and lookups from user space
 * {@code -EOPNOTSUPP} as Linux's; the map stays empty and redirects take the fallback action.</li>
 * </ul>
 */
public final class RedirectMap extends BpfMap {
    /** cpumap.c: the sanity limit on a CPU's queue size. */
    static final int CPUMAP_MAX_QSIZE = 16384;
    /** NR_CPUS of the x86-64 distribution kernels (CONFIG_NR_CPUS=8192): cpumap's max_entries limit. */
    static final int NR_CPUS = 8192;

    private final TreeMap<Integer, byte[]> entries = new TreeMap<>(Integer::compareUnsigned);

    public RedirectMap(MapDefinition def) {
        super(def);
        MapType t = def.type();
        CreateChecks.require(def, t.isRedirect(), "not a redirect map");
        int vs = def.valueSize();
        switch (t) {
            case DEVMAP: case DEVMAP_HASH:
                CreateChecks.require(def, def.maxEntries() != 0 && def.keySize() == 4 && (vs == 4 || vs == 8),
                        "devmaps need key_size 4, value_size 4 (ifindex) or 8 (struct bpf_devmap_val) and max_entries > 0");
                CreateChecks.flags(def, MapFlags.BPF_F_NUMA_NODE | MapFlags.BPF_F_RDONLY | MapFlags.BPF_F_WRONLY);
                // DEVMAP_HASH: n_buckets = roundup_pow_of_two(max_entries), 0 past 2^31
                if (t == MapType.DEVMAP_HASH && Integer.toUnsignedLong(def.maxEntries()) > 1L << 31) {
                    throw CreateChecks.fail(def, Errno.EINVAL, "max_entries too large for a devmap hash");
                }
                break;
            case CPUMAP:
                CreateChecks.require(def, def.maxEntries() != 0 && def.keySize() == 4 && (vs == 4 || vs == 8),
                        "cpumaps need key_size 4, value_size 4 (qsize) or 8 (struct bpf_cpumap_val) and max_entries > 0");
                CreateChecks.flags(def, MapFlags.BPF_F_NUMA_NODE);
                if (Integer.toUnsignedLong(def.maxEntries()) > NR_CPUS) throw CreateChecks.fail(def, Errno.E2BIG, "max_entries past NR_CPUS");
                break;
            default: // XSKMAP
                CreateChecks.require(def, def.maxEntries() != 0 && def.keySize() == 4 && vs == 4,
                        "xskmaps need key_size 4, value_size 4 and max_entries > 0");
                CreateChecks.flags(def, MapFlags.BPF_F_NUMA_NODE | MapFlags.BPF_F_RDONLY | MapFlags.BPF_F_WRONLY);
        }
    }

    private boolean array() { return def.type() != MapType.DEVMAP_HASH; }

    private boolean inRange(int k) { return Integer.compareUnsigned(k, def.maxEntries()) < 0; }

    /** True when {@code key} holds a target: what the kernel's {@code __*_map_lookup_elem} finds in a redirect. */
    public synchronized boolean hasTarget(int key) { return entries.containsKey(key); }

    /** The interface indexes of this machine ({@code /sys/class/net/* /ifindex}). */
    static boolean interfaceExists(int ifindex) {
        Path net = Path.of("/sys/class/net");
        try (Stream<Path> s = Files.list(net)) {
            return s.anyMatch(p -> {
                try {
                    return Integer.parseInt(Files.readString(p.resolve("ifindex")).trim()) == ifindex;
                } catch (IOException | NumberFormatException e) {
                    return false;
                }
            });
        } catch (IOException e) {
            return false;
        }
    }

    @Override protected synchronized byte[] read(byte[] key) {
        if (def.type() == MapType.XSKMAP) throw new BpfMapException(Errno.EOPNOTSUPP, describe() + ": xskmap lookups from user space are not supported (as in Linux)");
        byte[] v = entries.get(ArrayKeys.u32(key));
        return v == null ? null : v.clone();
    }

    @Override protected synchronized int write(byte[] key, byte[] value, long flags, boolean allCpus) {
        int k = ArrayKeys.u32(key);
        int first = ArrayKeys.u32(value);
        int fd = value.length == 8 ? ArrayKeys.u32(value, 4) : 0;
        switch (def.type()) {
            case DEVMAP: {
                if (flags > MapFlags.BPF_EXIST || flags < 0) return -Errno.EINVAL;
                if (!inRange(k)) return -Errno.E2BIG;
                if (flags == MapFlags.BPF_NOEXIST) return -Errno.EEXIST;
                if (first == 0) {
                    if (fd > 0) return -Errno.EINVAL;
                    entries.remove(k);
                    return 0;
                }
                if (fd > 0 || !interfaceExists(first)) return -Errno.EINVAL;
                entries.put(k, stored(first, value.length));
                return 0;
            }
            case DEVMAP_HASH: {
                if (flags > MapFlags.BPF_EXIST || flags < 0 || first == 0) return -Errno.EINVAL;
                boolean old = entries.containsKey(k);
                if (old && flags == MapFlags.BPF_NOEXIST) return -Errno.EEXIST;
                if (fd > 0 || !interfaceExists(first)) return -Errno.EINVAL;
                if (!old && Integer.compareUnsigned(entries.size(), def.maxEntries()) >= 0) return -Errno.E2BIG;
                entries.put(k, stored(first, value.length));
                return 0;
            }
            case CPUMAP: {
                if (flags > MapFlags.BPF_EXIST || flags < 0) return -Errno.EINVAL;
                if (!inRange(k)) return -Errno.E2BIG;
                if (flags == MapFlags.BPF_NOEXIST) return -Errno.EEXIST;
                if (Integer.compareUnsigned(first, CPUMAP_MAX_QSIZE) > 0) return -Errno.EOVERFLOW;
                if (Integer.compareUnsigned(k, Cpus.possible()) >= 0) return -Errno.ENODEV;
                if (first == 0) {
                    entries.remove(k);
                    return 0;
                }
                if (fd > 0) return -Errno.EINVAL;
                entries.put(k, stored(first, value.length));
                return 0;
            }
            default: // XSKMAP
                if (flags > MapFlags.BPF_EXIST || flags < 0) return -Errno.EINVAL;
                if (!inRange(k)) return -Errno.E2BIG;
                return -Errno.EOPNOTSUPP;
        }
    }

    /** The value a lookup reads back: the ifindex / qsize, and prog id 0 for the 8-byte layout. */
    private static byte[] stored(int first, int size) {
        byte[] v = Arrays.copyOf(ArrayKeys.le32(first), size);
        return v;
    }

    @Override protected synchronized int remove(byte[] key) {
        int k = ArrayKeys.u32(key);
        if (array()) {
            // dev_map_delete_elem / cpu_map_delete_elem / xsk_map_delete_elem: -EINVAL past the end, else 0
            if (!inRange(k)) return -Errno.EINVAL;
            entries.remove(k);
            return 0;
        }
        return entries.remove(k) == null ? -Errno.ENOENT : 0;
    }

    @Override protected synchronized int next(byte[] key, byte[] out) {
        if (array()) return ArrayKeys.next(def.maxEntries(), key, out);
        // dev_map_hash_get_next_key: a missing or null key gives the first; the key after it otherwise
        Integer after = key == null || !entries.containsKey(ArrayKeys.u32(key)) ? null : ArrayKeys.u32(key);
        Integer n = after == null ? (entries.isEmpty() ? null : entries.firstKey()) : entries.higherKey(after);
        if (n == null) return -Errno.ENOENT;
        System.arraycopy(ArrayKeys.le32(n), 0, out, 0, 4);
        return 0;
    }

    /** Programs may not look these maps up here (devmap / xskmap lookups from programs: not implemented). */
    @Override protected long valueAddress(byte[] key, boolean fromProgram) { return 0; }

    @Override protected synchronized void free() { entries.clear(); }
}
