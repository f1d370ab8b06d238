package dev.bpf4j.jit.probe;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Closure;
import com.kenai.jffi.ClosureManager;
import com.kenai.jffi.Type;

import dev.bpf4j.jit.runtime.DirectRuns;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one jffi closure {@code void upcall(long pt_regs, long link)} through which trampolines run
 * programs in Java. The trampoline enters it with rsp 16-byte aligned and restores every register
 * it clobbers (rax, rcx, rdx, rsi, rdi, r8-r11) from pt_regs afterwards. Nothing escapes into
 * native code: the link records failures. A thread already inside a probe's Java run (or a Java
 * helper of a direct probe run) skips the hit and counts it as missed (the kernel's per-program
 * recursion check).
 */
final class Upcall implements Closure {
    private static final Upcall INSTANCE = new Upcall();
    private static final Map<Long, ProbeLink> LINKS = new ConcurrentHashMap<>();
    private static final AtomicLong IDS = new AtomicLong(1);
    private static final ThreadLocal<boolean[]> INSIDE = ThreadLocal.withInitial(() -> new boolean[1]);
    /** Strongly held for the life of the process: trampolines call its address. */
    private static volatile Closure.Handle handle;

    private Upcall() {}

    static long address() {
        Closure.Handle h = handle;
        if (h == null) {
            synchronized (Upcall.class) {
                h = handle;
                if (h == null) {
                    CallContext cc = CallContext.getCallContext(Type.VOID, new Type[]{Type.SINT64, Type.SINT64}, CallingConvention.DEFAULT, false);
                    h = ClosureManager.getInstance().newClosure(INSTANCE, cc);
                    h.setAutoRelease(false);
                    handle = h;
                }
            }
        }
        return h.getAddress();
    }

    static long register(ProbeLink link) {
        long id = IDS.getAndIncrement();
        LINKS.put(id, link);
        return id;
    }

    /** After this a retired trampoline's upcall for {@code id} does nothing. */
    static void unregister(long id) { LINKS.remove(id); }

    @Override public void invoke(Closure.Buffer buf) {
        try {
            ProbeLink link = LINKS.get(buf.getLong(1));
            if (link == null) return;
            boolean[] inside = INSIDE.get();
            if (inside[0] || DirectRuns.inHelper()) {
                link.stats().add(ProbeStats.MISSED, 1);
                return;
            }
            inside[0] = true;
            try {
                link.runInJava(buf.getLong(0));
            } finally {
                inside[0] = false;
            }
        } catch (Throwable t) {
            // runInJava records the program's failures; this guards the closure itself.
        }
    }
}
