package dev.bpf4j.unwind.sampling;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.LastError;
import com.kenai.jffi.Library;
import com.kenai.jffi.MemoryIO;
import com.kenai.jffi.Type;

import java.util.Arrays;

/**
 * The libc calls the sampler makes, through jffi's {@code invokeN*} (jnr-ffi corrupts the 6th
 * argument of all-integer 6-argument bindings, and {@code syscall(298, ...)} and {@code mmap} have
 * six: DESIGN.md). Each returns the raw result; {@link #errno()} is the calling thread's errno
 * right after it.
 */
final class PerfSys {
    private PerfSys() {}

    private static final long PROT_READ_WRITE = 0x1 | 0x2;
    private static final long MAP_SHARED = 0x01;
    static final long MAP_FAILED = -1;

    private static final Invoker INVOKER = Invoker.getInstance();
    private static final long SYSCALL = symbol("syscall");
    private static final long MMAP = symbol("mmap");
    private static final long MUNMAP = symbol("munmap");
    private static final long IOCTL = symbol("ioctl");
    private static final long CLOSE = symbol("close");
    private static final long POLL = symbol("poll");
    private static final long EVENTFD = symbol("eventfd");
    private static final long READ = symbol("read");
    private static final long WRITE = symbol("write");
    private static final long EPOLL_CREATE1 = symbol("epoll_create1");
    private static final long EPOLL_CTL = symbol("epoll_ctl");
    private static final long EPOLL_WAIT = symbol("epoll_wait");
    private static final CallContext L1 = ctx(1), L2 = ctx(2), L3 = ctx(3), L4 = ctx(4), L6 = ctx(6);

    private static long symbol(String name) {
        long a = Library.getDefault().getSymbolAddress(name);
        if (a == 0) throw new UnsatisfiedLinkError("libc has no " + name);
        return a;
    }

    private static CallContext ctx(int args) {
        Type[] p = new Type[args];
        Arrays.fill(p, Type.SINT64);
        return CallContext.getCallContext(Type.SINT64, p, CallingConvention.DEFAULT, true);
    }

    static long gettid() { return INVOKER.invokeN1(L1, SYSCALL, PerfAbi.SYS_GETTID); }

    /** perf_event_open(attr, tid, cpu -1 (any), group -1, FD_CLOEXEC): a new fd, or -1 with errno set. */
    static int perfEventOpen(long attr, int tid) {
        return (int) INVOKER.invokeN6(L6, SYSCALL, PerfAbi.SYS_PERF_EVENT_OPEN, attr, tid, -1, -1, PerfAbi.PERF_FLAG_FD_CLOEXEC);
    }

    /** mmap(NULL, length, RW, MAP_SHARED, fd, 0): the address, or {@link #MAP_FAILED}. */
    static long mmapShared(int fd, long length) {
        return INVOKER.invokeN6(L6, MMAP, 0, length, PROT_READ_WRITE, MAP_SHARED, fd, 0);
    }

    static int munmap(long address, long length) { return (int) INVOKER.invokeN2(L2, MUNMAP, address, length); }

    static int ioctl(int fd, long request) { return ioctl(fd, request, 0); }

    static int ioctl(int fd, long request, long arg) { return (int) INVOKER.invokeN3(L3, IOCTL, fd, request, arg); }

    static int close(int fd) { return (int) INVOKER.invokeN1(L1, CLOSE, fd); }

    /** poll(fds, nfds, timeoutMillis): the number of ready fds, 0 on timeout, -1 with errno set. */
    static int poll(long fds, int nfds, int timeoutMillis) { return (int) INVOKER.invokeN3(L3, POLL, fds, nfds, timeoutMillis); }

    /** eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK): a new fd, or -1. */
    static int eventfd() { return (int) INVOKER.invokeN2(L2, EVENTFD, 0, 02000000 | 04000); }

    static long read(int fd, long buf, long count) { return INVOKER.invokeN3(L3, READ, fd, buf, count); }

    static long write(int fd, long buf, long count) { return INVOKER.invokeN3(L3, WRITE, fd, buf, count); }

    /** epoll_create1(EPOLL_CLOEXEC): a new epoll fd, or -1. */
    static int epollCreate() { return (int) INVOKER.invokeN1(L1, EPOLL_CREATE1, 02000000); }

    /** epoll_ctl(epfd, op, fd, event): 0, or -1 with errno set. */
    static int epollCtl(int epfd, int op, int fd, long event) { return (int) INVOKER.invokeN4(L4, EPOLL_CTL, epfd, op, fd, event); }

    /** epoll_wait(epfd, events, max, timeoutMillis): the number of ready fds, 0 on timeout, -1 with errno set. */
    static int epollWait(int epfd, long events, int max, int timeoutMillis) { return (int) INVOKER.invokeN4(L4, EPOLL_WAIT, epfd, events, max, timeoutMillis); }

    static int errno() { return LastError.getInstance().get(); }

    /** Native scratch for one attr; freed by the caller. */
    static long allocate(byte[] bytes) {
        MemoryIO io = MemoryIO.getInstance();
        long a = io.allocateMemory(bytes.length, true);
        if (a == 0) throw new OutOfMemoryError("cannot allocate " + bytes.length + " native bytes");
        io.putByteArray(a, bytes, 0, bytes.length);
        return a;
    }

    static void free(long address) { MemoryIO.getInstance().freeMemory(address); }
}
