package dev.bpf4j.stack;

import dev.bpf4j.maps.Errno;
import dev.bpf4j.maps.MapFlags;
import dev.bpf4j.maps.StackTraceMap;

import static dev.bpf4j.stack.StackFlags.*;

/**
 * {@code bpf_get_stackid}'s bucket logic ({@code __bpf_get_stackid} in kernel/bpf/stackmap.c) on an
 * already collected trace: skip, hash, compare, store. Pure of any engine, so the rules are tested
 * once on plain arrays.
 */
public final class StackIds {
    private StackIds() {}

    /** Flags {@code bpf_get_stackid} accepts. */
    public static final long VALID_FLAGS = BPF_F_SKIP_FIELD_MASK | BPF_F_USER_STACK | BPF_F_FAST_STACK_CMP | BPF_F_REUSE_STACKID;

    /** How many ips to collect for {@code flags}: {@code value_size / 8 + skip}, at most 127 (stack_map_calculate_max_depth). */
    public static int maxDepth(StackTraceMap map, long flags) {
        return Math.min(map.maxDepth() + skip(flags), PERF_EVENT_MAX_STACK);
    }

    /**
     * The id of {@code trace} (at most {@link #maxDepth} ips, innermost first) in {@code map}, or a
     * negative errno: -EINVAL for unknown flags, -EFAULT when the trace is not longer than skip,
     * -EEXIST when another trace holds the bucket (unless BPF_F_REUSE_STACKID), -ENOMEM when every
     * element is in use.
     */
    public static long getStackId(StackTraceMap map, long[] trace, long flags) {
        if ((flags & ~VALID_FLAGS) != 0) return -Errno.EINVAL;
        if ((map.definition().flags() & MapFlags.BPF_F_STACK_BUILD_ID) != 0) return -Errno.EINVAL;
        int skip = skip(flags);
        int nr = Math.min(trace.length, maxDepth(map, flags));
        if (nr <= skip) return -Errno.EFAULT;
        int traceNr = nr - skip;
        int hash = Jhash.hashIps(trace, skip, traceNr);
        int id = hash & (map.buckets() - 1);
        int bucket = map.bucketElement(id);
        boolean hashMatches = bucket >= 0 && map.elementHash(bucket) == hash;
        if (hashMatches && (flags & BPF_F_FAST_STACK_CMP) != 0) return id;
        if (hashMatches && map.elementHolds(bucket, trace, skip, traceNr)) return id;
        if (bucket >= 0 && (flags & BPF_F_REUSE_STACKID) == 0) return -Errno.EEXIST;
        int element = map.popFree();
        if (element < 0) return -Errno.ENOMEM;
        map.fillElement(element, hash, trace, skip, traceNr);
        int old = map.exchangeElement(id, element);
        if (old >= 0) map.pushFree(old);
        return id;
    }
}
