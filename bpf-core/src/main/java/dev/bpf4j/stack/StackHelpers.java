package dev.bpf4j.stack;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.maps.Errno;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.StackTraceMap;
import dev.bpf4j.runtime.Helper;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.unwind.Unwinder;
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
        b.add(HelperIds.GET_STACKID, "bpf_get_stackid", new GetStackId(maps, source));
        b.add(HelperIds.GET_STACK, "bpf_get_stack", new GetStack(source));
        return b;
    }

    /**
     * The Java body of {@code bpf_get_stackid}. Over the global stack source it is also what native
     * helpers ({@code bpf-jit-x86}'s native stack id) fall back to: each live unwind it makes teaches
     * {@link ConfirmedSteps} the steps it took and {@link StackMapHandles} the map's handle, so the
     * native walk can repeat them.
     */
    public static final class GetStackId implements Helper {
        private final MapTable maps;
        private final StackSource source;

        GetStackId(MapTable maps, StackSource source) {
            this.maps = maps;
            this.source = source;
        }

        /** True when native code may stand in for this body: its traces come from the global unwinder. */
        public boolean overGlobalSource() { return source == StackSource.global(); }

        @Override public long call(HelperCall call, long r1, long r2, long r3, long r4, long r5) {
            StackTraceMap map = maps.resolve(call, "bpf_get_stackid", r2, StackTraceMap.class, "BPF_MAP_TYPE_STACK_TRACE");
            if ((r3 & ~StackIds.VALID_FLAGS) != 0) return -Errno.EINVAL;
            long[] trace = source.trace(call, user(r3), StackIds.maxDepth(map, r3));
            if (overGlobalSource() && source.liveUnwind(call)) {
                ConfirmedSteps.global().learn(Unwinder.global(), trace);
                StackMapHandles.global().add(r2, map);
                ThreadStackTops.publish();
            }
            return StackIds.getStackId(map, trace, r3);
        }
    }

    /** The Java body of {@code bpf_get_stack}; as {@link GetStackId}, it teaches native helpers the steps of its live unwinds. */
    public static final class GetStack implements Helper {
        private final StackSource source;

        GetStack(StackSource source) { this.source = source; }

        public boolean overGlobalSource() { return source == StackSource.global(); }

        @Override public long call(HelperCall call, long r1, long r2, long r3, long r4, long r5) {
            return getStack(call, source, r2, r3 & 0xffffffffL, r4);
        }
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
        if (source == StackSource.global() && source.liveUnwind(call)) {
            ConfirmedSteps.global().learn(Unwinder.global(), trace);
            ThreadStackTops.publish();
        }
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
