package dev.bpf4j.unwind;

import jnr.ffi.LibraryLoader;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;

import java.util.Optional;

/**
 * The bounds {@code [low, high)} of a thread's stack as glibc knows them
 * ({@code pthread_getattr_np} + {@code pthread_attr_getstack}); an unwinder reading the live stack
 * stays inside them, so a garbage frame pointer into the heap or another thread's stack ends the
 * walk. The JVM's guard pages lie at the low end; views start at the stack pointer, above them.
 */
public record ThreadStack(long low, long high) {
    /** glibc's entry points (in libc.so.6 since 2.34, libpthread before). */
    public interface Pthread {
        long pthread_self();
        int pthread_getattr_np(long thread, Pointer attr);
        int pthread_attr_getstack(Pointer attr, Pointer stackaddr, Pointer stacksize);
        int pthread_attr_destroy(Pointer attr);
    }

    private static final class Lib {
        static final Pthread PTHREAD = LibraryLoader.create(Pthread.class).load("c");
        static final Runtime RUNTIME = Runtime.getRuntime(PTHREAD);
    }

    /** sizeof(pthread_attr_t) is 56 on x86-64 glibc; room to spare. */
    private static final int ATTR_SIZE = 128;
    private static final ThreadLocal<ThreadStack> CURRENT = ThreadLocal.withInitial(ThreadStack::query);

    public ThreadStack {
        if (Long.compareUnsigned(low, high) >= 0) throw new IllegalArgumentException(String.format("empty stack [0x%x, 0x%x)", low, high));
    }

    /** The calling thread's stack (asked once per thread). */
    public static ThreadStack current() { return CURRENT.get(); }

    private static ThreadStack query() {
        Pthread p = Lib.PTHREAD;
        Pointer attr = Memory.allocateDirect(Lib.RUNTIME, ATTR_SIZE, true);
        Pointer addr = Memory.allocateDirect(Lib.RUNTIME, 8, true);
        Pointer size = Memory.allocateDirect(Lib.RUNTIME, 8, true);
        int rc = p.pthread_getattr_np(p.pthread_self(), attr);
        if (rc != 0) throw new IllegalStateException("pthread_getattr_np failed: error " + rc);
        try {
            rc = p.pthread_attr_getstack(attr, addr, size);
            if (rc != 0) throw new IllegalStateException("pthread_attr_getstack failed: error " + rc);
            long low = addr.getLong(0);
            return new ThreadStack(low, low + size.getLong(0));
        } finally {
            p.pthread_attr_destroy(attr);
        }
    }

    public boolean contains(long address) {
        return Long.compareUnsigned(address, low) >= 0 && Long.compareUnsigned(address, high) < 0;
    }

    /** The live stack from {@code sp} to the top: empty when {@code sp} is not on this stack. */
    public Optional<MemoryView> viewFrom(long sp) {
        return contains(sp) ? Optional.of(new LiveMemoryView(sp, high)) : Optional.empty();
    }
}
