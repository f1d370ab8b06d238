package dev.bpf4j.stack;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.maps.Errno;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.StackTraceMap;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.NativeMemory;

import static dev.bpf4j.stack.StackFlags.*;

/**
 * {@code bpf_get_stackid} (27) and {@code bpf_get_stack} (67) with the kernel's flags, limits and
 * errors (kernel/bpf/stackmap.c). The trace comes from the run's {@link StackSource}, never from the
 * engine; r1 (the program's ctx in the kernel) is not read.
 */
public final class StackHelpers {
    private StackHelpers() {}

    /** Flags {@code bpf_get_stack} accepts. */
    public static final long GET_STACK_FLAGS = BPF_F_SKIP_FIELD_MASK | BPF_F_USER_STACK | BPF_F_USER_BUILD_ID;

    public static HelperRegistry.Builder register(HelperRegistry.Builder b, MapTable maps) {
        return register(b, maps, StackSource.global());
    }

    public static HelperRegistry.Builder register(HelperRegistry.Builder b, MapTable maps, StackSource source) {
        b.add(HelperIds.GET_STACKID, "bpf_get_stackid", (call, r1, r2, r3, r4, r5) -> {
            StackTraceMap map = maps.resolve(call, "bpf_get_stackid", r2, StackTraceMap.class, "BPF_MAP_TYPE_STACK_TRACE");
            return getStackId(call, source, map, r3);
        });
        b.add(HelperIds.GET_STACK, "bpf_get_stack",
                (call, r1, r2, r3, r4, r5) -> getStack(call, source, r2, r3 & 0xffffffffL, r4));
        return b;
    }

    static long getStackId(HelperCall call, StackSource source, StackTraceMap map, long flags) {
        if ((flags & ~StackIds.VALID_FLAGS) != 0) return -Errno.EINVAL;
        long[] trace = source.trace(call, user(flags), StackIds.maxDepth(map, flags));
        return StackIds.getStackId(map, trace, flags);
    }

    /** __bpf_get_stack: bytes copied, the rest of {@code buf} zeroed; on an error all of it zeroed. */
    static long getStack(HelperCall call, StackSource source, long buf, long size, long flags) {
        call.checkArgument(2, "bpf_get_stack buf (r2)", buf, size, true);
        boolean user = user(flags);
        boolean buildId = (flags & BPF_F_USER_BUILD_ID) != 0;
        // BPF_F_USER_BUILD_ID (build id + offset entries) is not supported: -EINVAL as for a kernel stack.
        if ((flags & ~GET_STACK_FLAGS) != 0 || buildId || size % 8 != 0) return clear(buf, size, -Errno.EINVAL);
        int skip = skip(flags);
        long numElem = size / 8;
        int maxDepth = (int) Math.min(numElem + skip, PERF_EVENT_MAX_STACK);
        long[] trace = source.trace(call, user, maxDepth);
        if (trace.length < skip) return clear(buf, size, -Errno.EFAULT);
        int traceNr = (int) Math.min(trace.length - skip, numElem);
        for (int i = 0; i < traceNr; i++) NativeMemory.putLong(buf + 8L * i, trace[skip + i]);
        long copied = 8L * traceNr;
        if (size > copied) NativeMemory.setMemory(buf + copied, size - copied, (byte) 0);
        return copied;
    }

    private static long clear(long buf, long size, long err) {
        if (size > 0) NativeMemory.setMemory(buf, size, (byte) 0);
        return err;
    }
}
