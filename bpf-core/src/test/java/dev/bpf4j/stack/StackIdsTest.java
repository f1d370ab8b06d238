package dev.bpf4j.stack;

import dev.bpf4j.maps.Errno;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.maps.StackTraceMap;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static dev.bpf4j.stack.StackFlags.*;
import static org.assertj.core.api.Assertions.assertThat;

/** __bpf_get_stackid's rules on plain traces: skip, depth, id formula, EEXIST/REUSE/FAST_STACK_CMP, EFAULT, EINVAL, ENOMEM. */
class StackIdsTest {
    private static StackTraceMap map(int depth, int maxEntries) {
        return new StackTraceMap(new MapDefinition("stacks", MapType.STACK_TRACE, 4, depth * 8, maxEntries, 0));
    }

    private static long[] trace(long... ips) { return ips; }

    @Test
    void idIsTheJhash2OfTheIpsAfterSkipMaskedToThePowerOfTwoBuckets() {
        StackTraceMap m = map(8, 100); // 128 buckets
        long[] t = trace(0x401000, 0x402000, 0x403000, 0x404000);
        long id = StackIds.getStackId(m, t, 1);
        int hash = Jhash.hashIps(t, 1, 3);
        assertThat(m.buckets()).isEqualTo(128);
        assertThat(id).isEqualTo(hash & 127);
        assertThat(m.ips((int) id)).hasValueSatisfying(ips -> assertThat(ips).containsExactly(0x402000, 0x403000, 0x404000));
        assertThat(m.bucket((int) id).hash()).isEqualTo(hash);
        // the same trace again: the same id, nothing replaced
        assertThat(StackIds.getStackId(m, t, 1)).isEqualTo(id);
    }

    @Test
    void depthIsCappedByValueSizeAfterSkip() {
        StackTraceMap m = map(2, 16);
        long[] t = trace(1, 2, 3, 4, 5, 6);
        // max_depth = value_size/8 + skip = 3 ips collected, 1 skipped, 2 stored
        long id = StackIds.getStackId(m, t, 1);
        assertThat(m.ips((int) id)).hasValueSatisfying(ips -> assertThat(ips).containsExactly(2, 3));
        assertThat(id).isEqualTo(Jhash.hashIps(new long[] {2, 3}, 0, 2) & 15);
        assertThat(StackIds.maxDepth(m, 200)).isEqualTo(127);
        assertThat(StackIds.maxDepth(m, 3)).isEqualTo(5);
    }

    @Test
    void aTraceNotLongerThanSkipIsEfault() {
        StackTraceMap m = map(4, 4);
        assertThat(StackIds.getStackId(m, trace(), 0)).isEqualTo(-Errno.EFAULT);
        assertThat(StackIds.getStackId(m, trace(1, 2), 2)).isEqualTo(-Errno.EFAULT);
        assertThat(StackIds.getStackId(m, trace(1, 2, 3), 2)).isGreaterThanOrEqualTo(0);
    }

    @Test
    void unknownFlagsAreEinval() {
        StackTraceMap m = map(4, 4);
        assertThat(StackIds.getStackId(m, trace(1), 1L << 11)).isEqualTo(-Errno.EINVAL);
        assertThat(StackIds.getStackId(m, trace(1), 1L << 32)).isEqualTo(-Errno.EINVAL);
        assertThat(StackIds.getStackId(m, trace(1), BPF_F_USER_STACK | BPF_F_FAST_STACK_CMP | BPF_F_REUSE_STACKID)).isGreaterThanOrEqualTo(0);
    }

    @Test
    void collisionIsEexistUnlessReuse() {
        StackTraceMap m = map(4, 2); // two buckets, two elements
        long[] a = trace(1, 2);
        long[] b = sameBucket(a, 2);
        long id = Jhash.hashIps(a, 0, 2) & 1;
        assertThat(StackIds.getStackId(m, a, 0)).isEqualTo(id);
        assertThat(StackIds.getStackId(m, b, 0)).isEqualTo(-Errno.EEXIST);
        assertThat(m.ips((int) id)).hasValueSatisfying(ips -> assertThat(ips).containsExactly(a));
        assertThat(StackIds.getStackId(m, b, BPF_F_REUSE_STACKID)).isEqualTo(id);
        assertThat(m.ips((int) id)).hasValueSatisfying(ips -> assertThat(ips).containsExactly(b));
        assertThat(StackIds.getStackId(m, b, 0)).isEqualTo(id);
    }

    @Test
    void reuseNeedsAFreeElementBeforeItSwaps() {
        // max_entries 1: the only element is in the bucket, so REUSE cannot pop one (the kernel's -ENOMEM)
        StackTraceMap m = map(4, 1);
        assertThat(StackIds.getStackId(m, trace(1, 2), 0)).isZero();
        assertThat(StackIds.getStackId(m, trace(3, 4), BPF_F_REUSE_STACKID)).isEqualTo(-Errno.ENOMEM);
        assertThat(StackIds.getStackId(m, trace(3, 4), 0)).isEqualTo(-Errno.EEXIST);
    }

    /** Another two-ip trace whose id falls in the same bucket of a 2-bucket map as {@code t}. */
    private static long[] sameBucket(long[] t, int nr) {
        int want = Jhash.hashIps(t, 0, nr) & 1;
        for (long x = 100; ; x++) {
            long[] c = {x, x + 1};
            if ((Jhash.hashIps(c, 0, 2) & 1) == want) return c;
        }
    }

    @Test
    void fastStackCmpTrustsAnEqualHash() {
        long[] pair = fullHashCollision();
        StackTraceMap m = map(1, 1024);
        long id = StackIds.getStackId(m, trace(pair[0]), 0);
        assertThat(StackIds.getStackId(m, trace(pair[1]), 0)).as("same hash, other ips").isEqualTo(-Errno.EEXIST);
        assertThat(StackIds.getStackId(m, trace(pair[1]), BPF_F_FAST_STACK_CMP)).isEqualTo(id);
        assertThat(m.ips((int) id)).hasValueSatisfying(ips -> assertThat(ips).containsExactly(pair[0]));
    }

    @Test
    void allElementsInUseIsEnomem() {
        StackTraceMap m = map(1, 3); // 4 buckets, 3 elements
        Map<Long, Long> byId = new HashMap<>();
        long ip = 1;
        while (byId.size() < 4) {
            long id = Jhash.hashIps(new long[] {ip}, 0, 1) & 3;
            byId.putIfAbsent(id, ip);
            ip++;
        }
        int stored = 0;
        for (long id = 0; id < 4; id++) {
            long r = StackIds.getStackId(m, trace(byId.get(id)), 0);
            if (stored < 3) assertThat(r).isEqualTo(id);
            else assertThat(r).as("the 4th bucket has no free element").isEqualTo(-Errno.ENOMEM);
            stored++;
        }
        // deleting one frees its element
        m.delete(new byte[] {0, 0, 0, 0});
        assertThat(StackIds.getStackId(m, trace(byId.get(3L)), 0)).isEqualTo(3);
        // REUSE pops a fresh element before it swaps the old one out: with all 3 in use that is -ENOMEM
        long o = ip;
        while ((Jhash.hashIps(new long[] {o}, 0, 1) & 3) != 1) o++;
        long other = o;
        assertThat(StackIds.getStackId(m, trace(other), BPF_F_REUSE_STACKID)).isEqualTo(-Errno.ENOMEM);
        m.delete(new byte[] {2, 0, 0, 0});
        assertThat(StackIds.getStackId(m, trace(other), BPF_F_REUSE_STACKID)).isEqualTo(1);
        assertThat(m.ips(1)).hasValueSatisfying(ips -> assertThat(ips).containsExactly(other));
    }

    /** Two one-ip traces whose full 32-bit jhash2 is equal (birthday search, ~2^16 tries). */
    static long[] fullHashCollision() {
        Map<Integer, Long> seen = new HashMap<>();
        for (long ip = 0x400000; ; ip += 16) {
            Long other = seen.putIfAbsent(Jhash.hashIps(new long[] {ip}, 0, 1), ip);
            if (other != null) return new long[] {other, ip};
        }
    }
}
