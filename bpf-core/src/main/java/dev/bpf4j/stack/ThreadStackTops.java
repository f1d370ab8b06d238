package dev.bpf4j.stack;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;
import dev.bpf4j.unwind.ThreadStack;

/**
 * The bounds of each thread's stack ({@link ThreadStack}: a live walk reads only below its top,
 * from a start inside them) where native code finds them: {@code {u64 low, u64 high}}, malloc'd under a pthread key of this process, set by
 * Java on the thread itself ({@link #publish}) and freed by libc when the thread exits. A thread
 * with nothing published has its stack helpers run in Java (which publishes).
 */
public final class ThreadStackTops {
    private ThreadStackTops() {}

    public static final int LOW = 0, HIGH = 8;

    private static final Invoker INVOKER = Invoker.getInstance();
    private static final CallContext L1 = context(Type.SINT64, 1), I2 = context(Type.SINT, 2);
    private static final long GETSPECIFIC = symbol("pthread_getspecific"), SETSPECIFIC = symbol("pthread_setspecific");
    private static final long MALLOC = symbol("malloc"), FREE = symbol("free");
    /** The key, or -1 where libc refused one (then native helpers always fall back). */
    private static final int KEY = createKey();
    private static final ThreadLocal<Boolean> PUBLISHED = ThreadLocal.withInitial(() -> false);

    public static boolean available() { return KEY >= 0; }

    public static int key() { return KEY; }

    public static long getspecific() { return GETSPECIFIC; }

    /** Makes this thread's stack top visible to native code (once per thread). */
    public static void publish() {
        if (KEY < 0 || PUBLISHED.get()) return;
        long p = INVOKER.invokeN1(L1, MALLOC, 16);
        if (p == 0) return;
        ThreadStack stack = ThreadStack.current();
        com.kenai.jffi.MemoryIO.getInstance().putLong(p + LOW, stack.low());
        com.kenai.jffi.MemoryIO.getInstance().putLong(p + HIGH, stack.high());
        if (INVOKER.invokeN2(I2, SETSPECIFIC, KEY, p) != 0) {
            INVOKER.invokeN1(L1, FREE, p);
            return;
        }
        PUBLISHED.set(true);
    }

    private static int createKey() {
        long create = symbol("pthread_key_create");
        if (create == 0 || GETSPECIFIC == 0 || SETSPECIFIC == 0 || MALLOC == 0 || FREE == 0) return -1;
        long key = dev.bpf4j.runtime.NativeMemory.allocate(8);
        try {
            dev.bpf4j.runtime.NativeMemory.putLong(key, 0);
            // one key for the process, never deleted: free() releases a thread's bounds when it exits
            if (INVOKER.invokeN2(I2, create, key, FREE) != 0) return -1;
            return dev.bpf4j.runtime.NativeMemory.getInt(key);
        } finally {
            dev.bpf4j.runtime.NativeMemory.free(key);
        }
    }

    private static CallContext context(Type ret, int args) {
        Type[] p = new Type[args];
        java.util.Arrays.fill(p, Type.SINT64);
        return CallContext.getCallContext(ret, p, CallingConvention.DEFAULT, false);
    }

    private static long symbol(String name) {
        try {
            return Library.getDefault().getSymbolAddress(name);
        } catch (Throwable t) {
            return 0;
        }
    }
}
