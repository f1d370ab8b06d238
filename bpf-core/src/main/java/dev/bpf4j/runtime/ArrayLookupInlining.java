package dev.bpf4j.runtime;

import java.util.Optional;

/**
 * What a JIT may emit instead of calling {@code bpf_map_lookup_elem} when r1 is a constant at the
 * call site, as the kernel's {@code map_gen_lookup} does for array maps: the elements of the
 * {@code BPF_MAP_TYPE_ARRAY} or {@code BPF_MAP_TYPE_PERCPU_ARRAY} map whose handle that constant
 * is. The helper's Java body stays the definition (and the path for every other call); the inline
 * form must give the same r0.
 */
@FunctionalInterface
public interface ArrayLookupInlining {
    /** The array behind handle {@code r1}, or empty when {@code r1} is anything else (then the helper is called). */
    Optional<Elements> arrayFor(long r1);

    /**
     * Element {@code i < maxEntries} (u32 compare) of the key's u32 index is at {@code valuesBase + (i *
     * cpus + cpu) * stride}; any other index looks up NULL. {@code cpus} is 1 for a plain array (cpu 0);
     * a per-CPU array has one value per possible CPU, and {@code cpu} is what {@code int
     * currentCpu(void)} (a native function, 0 for none: cpu 0) returns when it is below {@code cpus},
     * else 0. The values stay at these addresses while the 8-byte word at {@code openWord} is non-zero
     * (the map is open); after that the helper must be called (it refuses a closed map). The word
     * stays readable as long as the map is reachable.
     */
    record Elements(long valuesBase, int maxEntries, int stride, int keySize, long openWord, int cpus, long currentCpu) {
        public Elements {
            if (valuesBase == 0 || maxEntries == 0 || stride <= 0 || keySize != 4 || openWord == 0 || cpus <= 0) {
                throw new IllegalArgumentException("not an array map's elements: " + valuesBase + ", " + maxEntries + ", " + stride
                        + ", " + keySize + ", " + openWord + ", " + cpus);
            }
        }

        /** A plain (not per-CPU) array. */
        public Elements(long valuesBase, int maxEntries, int stride, int keySize, long openWord) {
            this(valuesBase, maxEntries, stride, keySize, openWord, 1, 0);
        }
    }
}
