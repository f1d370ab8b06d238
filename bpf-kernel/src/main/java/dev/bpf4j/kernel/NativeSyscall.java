package dev.bpf4j.kernel;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.LastError;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;

/**
 * libc's {@code long syscall(long number, ...)} through jffi's raw {@link Invoker}. jnr-ffi is not
 * used: its x86 stub corrupts the 6th argument of all-integer 6-argument bindings (DESIGN.md
 * "Facts measured"). The call context is variadic with one fixed argument, as the C prototype is.
 */
final class NativeSyscall {
    private NativeSyscall() {}

    /** x86-64 system call numbers (arch/x86/entry/syscalls/syscall_64.tbl). */
    static final int SYS_CLOSE = 3, SYS_MOUNT = 165, SYS_UMOUNT2 = 166, SYS_BPF = 321;

    private static final long SYSCALL = Library.getDefault().getSymbolAddress("syscall");
    private static final CallContext CONTEXT = CallContext.getCallContext(Type.SLONG, 1,
            new Type[] {Type.SLONG, Type.SLONG, Type.SLONG, Type.SLONG, Type.SLONG, Type.SLONG},
            CallingConvention.DEFAULT, true);

    static {
        if (SYSCALL == 0) throw new UnsatisfiedLinkError("libc has no 'syscall' symbol: " + Library.getLastError());
    }

    /** The raw result: {@code >= 0} on success; on failure {@code -errno}. */
    static long call(int number, long a1, long a2, long a3, long a4, long a5) {
        long r = Invoker.getInstance().invokeL6(CONTEXT, SYSCALL, number, a1, a2, a3, a4, a5);
        if (r == -1) {
            int errno = LastError.getInstance().get();
            return -(errno == 0 ? SyscallErrno.EINVAL : errno);
        }
        return r;
    }

    /** Like {@link #call}, throwing {@link KernelBpfException} naming {@code what} on failure. */
    static long checked(String what, int number, long a1, long a2, long a3, long a4, long a5) {
        long r = call(number, a1, a2, a3, a4, a5);
        if (r < 0) throw new KernelBpfException(what, (int) -r, null);
        return r;
    }

    static void close(int fd) {
        if (fd >= 0) call(SYS_CLOSE, fd, 0, 0, 0, 0);
    }
}
