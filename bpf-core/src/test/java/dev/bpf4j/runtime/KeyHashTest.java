package dev.bpf4j.runtime;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link KeyHash}: the byte-array and native forms agree for every key size, and the hash spreads keys. */
class KeyHashTest {
    @Test
    void nativeAndArrayFormsAgree() {
        Random r = new Random(7);
        long buf = NativeMemory.allocate(80);
        try {
            for (int size = 1; size <= 72; size++) {
                for (int n = 0; n < 50; n++) {
                    byte[] key = new byte[size];
                    r.nextBytes(key);
                    int off = r.nextInt(8); // unaligned as well
                    NativeMemory.write(buf + off, key, 0, size);
                    assertThat(KeyHash.of(buf + off, size)).as("size %d", size).isEqualTo(KeyHash.of(key));
                }
            }
        } finally {
            NativeMemory.free(buf);
        }
    }

    @Test
    void knownValuesPinTheFunction() {
        // The JIT computes the same function in x86 (InlineHashLookup): changing it changes both, and this.
        assertThat(KeyHash.of(new byte[0])).isEqualTo(finishOnly(KeyHash.SEED));
        int h = KeyHash.SEED ^ 0x04030201;
        h *= KeyHash.MIX;
        h ^= h >>> 15;
        h ^= 5;
        h *= KeyHash.MIX;
        h ^= h >>> 15;
        assertThat(KeyHash.of(new byte[]{1, 2, 3, 4, 5})).isEqualTo(finishOnly(h));
    }

    private static int finishOnly(int h) {
        h ^= h >>> 13;
        h *= KeyHash.FINISH;
        return h ^ (h >>> 16);
    }

    @Test
    void consecutiveKeysSpreadOverBuckets() {
        Set<Integer> buckets = new HashSet<>();
        for (int i = 0; i < 64; i++) buckets.add(KeyHash.of(new byte[]{(byte) i, 0, 0, 0}) & 63);
        assertThat(buckets.size()).isGreaterThan(32); // 64 keys into 64 buckets: ~40 distinct expected
    }
}
