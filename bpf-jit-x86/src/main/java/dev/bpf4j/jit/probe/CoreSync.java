package dev.bpf4j.jit.probe;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;

/**
 * "Sync all cores" of live text patching: {@code membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE)}
 * makes every running thread of this process execute a core-serializing instruction before it
 * returns (threads not running serialize when they are switched back in), so none keeps executing
 * bytes fetched before the write — what the kernel's {@code text_poke_sync()} does with an IPI to
 * every CPU. Where the kernel offers only {@code PRIVATE_EXPEDITED} (an IPI and a full barrier,
 * whose return to user space through {@code iret} serializes on x86), that is used; with neither,
 * {@link #mode} says so and {@link #sync} does nothing.
 */
final class CoreSync {
    private CoreSync() {}

    private static final long SYS_MEMBARRIER = 324; // x86-64
    private static final int QUERY = 0, PRIVATE_EXPEDITED = 1 << 3, REGISTER_PRIVATE_EXPEDITED = 1 << 4;
    private static final int PRIVATE_EXPEDITED_SYNC_CORE = 1 << 5, REGISTER_PRIVATE_EXPEDITED_SYNC_CORE = 1 << 6;
    private static final CallContext CALL = CallContext.getCallContext(Type.SINT64,
            new Type[]{Type.SINT64, Type.SINT64, Type.SINT64, Type.SINT64}, CallingConvention.DEFAULT, false);
    private static final long SYSCALL = Library.getDefault().getSymbolAddress("syscall");
    /** The membarrier command {@link #sync} issues, 0 for none. */
    private static final int CMD = register();

    private static long membarrier(int cmd) { return Invoker.getInstance().invokeN4(CALL, SYSCALL, SYS_MEMBARRIER, cmd, 0, 0); }

    private static int register() {
        if (SYSCALL == 0) return 0;
        long supported = membarrier(QUERY);
        if (supported < 0) return 0;
        if ((supported & PRIVATE_EXPEDITED_SYNC_CORE) != 0 && membarrier(REGISTER_PRIVATE_EXPEDITED_SYNC_CORE) == 0) return PRIVATE_EXPEDITED_SYNC_CORE;
        if ((supported & PRIVATE_EXPEDITED) != 0 && membarrier(REGISTER_PRIVATE_EXPEDITED) == 0) return PRIVATE_EXPEDITED;
        return 0;
    }

    /** Every running thread of the process has serialized its instruction stream when this returns. */
    static void sync() {
        if (CMD != 0 && membarrier(CMD) != 0) throw new IllegalStateException("membarrier(" + CMD + ") failed after registration");
    }

    /** Which command syncs: "sync-core", "expedited" or "none". */
    static String mode() {
        return CMD == PRIVATE_EXPEDITED_SYNC_CORE ? "sync-core" : CMD == PRIVATE_EXPEDITED ? "expedited" : "none";
    }
}
