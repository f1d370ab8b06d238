package dev.bpf4j.jit.runtime;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;

/**
 * Linux {@code membarrier(2)} with {@code MEMBARRIER_CMD_PRIVATE_EXPEDITED}: a full memory barrier
 * on every running thread of this process, issued by one thread (the "asymmetric fence" liburcu and
 * the kernel's own RCU users build on). It lets the frequent side of a store→load handshake
 * (a thread entering a run) order its accesses with a compiler barrier only, while the rare side
 * ({@link JitExecutable#close}) pays a system call. The process registers once; where the kernel
 * (or a seccomp filter, or a non-Linux system) refuses, {@link #AVAILABLE} is false and readers
 * use a real fence instead.
 */
final class Membarrier {
    private Membarrier() {}

    private static final long SYS_MEMBARRIER = 324; // x86-64
    private static final int CMD_QUERY = 0;
    private static final int CMD_PRIVATE_EXPEDITED = 1 << 3;
    private static final int CMD_REGISTER_PRIVATE_EXPEDITED = 1 << 4;

    private static final CallContext CALL = CallContext.getCallContext(Type.SINT64,
            new Type[]{Type.SINT64, Type.SINT64, Type.SINT64, Type.SINT64}, CallingConvention.DEFAULT, false);
    private static final long SYSCALL = symbol("syscall");
    /** True once the process is registered for private expedited barriers; decided once, at class init. */
    static final boolean AVAILABLE = !Boolean.getBoolean("bpf4j.jit.noMembarrier") && register();

    private static long symbol(String name) {
        try {
            return Library.getDefault().getSymbolAddress(name);
        } catch (Throwable t) {
            return 0;
        }
    }

    private static long membarrier(int cmd) {
        return Invoker.getInstance().invokeN4(CALL, SYSCALL, SYS_MEMBARRIER, cmd, 0, 0);
    }

    private static boolean register() {
        if (SYSCALL == 0 || !"amd64".equals(System.getProperty("os.arch")) || !"Linux".equals(System.getProperty("os.name"))) return false;
        try {
            long supported = membarrier(CMD_QUERY);
            if (supported < 0 || (supported & CMD_PRIVATE_EXPEDITED) == 0) return false;
            return membarrier(CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
        } catch (Throwable t) {
            return false;
        }
    }

    /**
     * Every thread of the process that is running now passes a full barrier before this returns
     * (threads not running have passed one when they were switched out). Only when {@link #AVAILABLE}.
     */
    static void barrier() {
        if (membarrier(CMD_PRIVATE_EXPEDITED) != 0) throw new IllegalStateException("membarrier(PRIVATE_EXPEDITED) failed after registration");
    }
}
