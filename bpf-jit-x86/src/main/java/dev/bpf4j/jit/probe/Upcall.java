package dev.bpf4j.jit.probe;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Closure;
import com.kenai.jffi.ClosureManager;
import com.kenai.jffi.Type;

import dev.bpf4j.jit.compiler.UpcallEmitter;
import dev.bpf4j.jit.runtime.DirectRuns;
import dev.bpf4j.jit.runtime.ExecutableMemory;
import dev.bpf4j.jit.runtime.GeneratedFunctions;
import dev.bpf4j.jit.runtime.JniUpcall;
import dev.bpf4j.jit.runtime.UpcallBlock;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The upcall {@code void upcall(long pt_regs, long link)} through which trampolines run programs in
 * Java: a generated function that enters Java through JNI ({@link UpcallEmitter}), or the jffi
 * closure where that is not available (and on threads the JVM does not know, which it attaches).
 * The trampoline enters it with rsp 16-byte aligned and restores every register it clobbers (rax, rcx, rdx, rsi, rdi, r8-r11) from pt_regs afterwards. Nothing escapes
 * into native code: the link records failures. A thread already inside a probe's Java run (or a Java
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

    /** The jffi closure (created on first use): the route for threads the JVM does not know. */
    private static long closure() {
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

    static final String SYMBOL = "bpf4j_probe_upcall";

    private static final class Generated {
        /** The upcall through JNI from generated code (as Java helpers' bridge); null where JNI cannot be reached. */
        static final ExecutableMemory CODE = GeneratedFunctions.jniUpcall(JniUpcall.route(Upcall.class, NONCE), closure(), 3, -1, 2, SYMBOL);
    }

    /** What trampolines call: the JNI upcall function, or the jffi closure where it is not available or turned off. */
    static long address() {
        ExecutableMemory generated = GeneratedFunctions.jniUpcalls() ? Generated.CODE : null;
        return generated != null ? generated.address() : closure();
    }

    /** This copy of the class, told from a same-named class of another loader ({@link JniUpcall}). */
    static final long NONCE = new java.util.SplittableRandom().nextLong() | 1;

    /** Answers {@link #NONCE}: JniUpcall's check that JNI found this copy of the class. */
    static long handshake() { return NONCE; }

    /** The upcall as the JNI function calls it: pt_regs and link in the block, marked done when it returns normally. */
    static long upcall(long block) {
        hit(UpcallBlock.arg(block, 0), UpcallBlock.arg(block, 1));
        UpcallBlock.returned(block);
        return 0;
    }

    static long register(ProbeLink link) {
        long id = IDS.getAndIncrement();
        LINKS.put(id, link);
        return id;
    }

    /** After this a retired trampoline's upcall for {@code id} does nothing. */
    static void unregister(long id) { LINKS.remove(id); }

    @Override public void invoke(Closure.Buffer buf) { hit(buf.getLong(0), buf.getLong(1)); }

    /** One hit of link {@code linkId} with the trampoline's pt_regs; never throws. */
    private static void hit(long ptRegs, long linkId) {
        try {
            ProbeLink link = LINKS.get(linkId);
            if (link == null) return;
            boolean[] inside = INSIDE.get();
            if (inside[0] || DirectRuns.inHelper()) {
                link.stats().add(ProbeStats.MISSED, 1);
                return;
            }
            inside[0] = true;
            try {
                link.runInJava(ptRegs);
            } finally {
                inside[0] = false;
            }
        } catch (Throwable t) {
            // runInJava records the program's failures; this guards the closure itself.
        }
    }
}
