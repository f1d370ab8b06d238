package dev.bpf4j.unwind;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Closure;
import com.kenai.jffi.ClosureManager;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Library;
import com.kenai.jffi.MemoryIO;
import com.kenai.jffi.Type;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import static dev.bpf4j.unwind.CaptureRoutine.*;

/**
 * A gcc-built library whose {@code a} calls {@code b} calls {@code c} calls the {@link CaptureRoutine}
 * passed from Java; the routine's upcall runs a Java function on the registers it saw while the
 * frames of a, b and c are live.
 */
final class CallChain {
    static final String SOURCE = String.join("\n",
            "typedef void (*capture_fn)(long *buf);",
            "__attribute__((noipa)) long c(capture_fn cap, long *buf) { cap(buf); return buf[5] + 1; }",
            "__attribute__((noipa)) long b(capture_fn cap, long *buf) { return c(cap, buf) + 2; }",
            "__attribute__((noipa)) long a(capture_fn cap, long *buf) { return b(cap, buf) + 3; }",
            "");

    /** The registers the routine saw, a copy of the stack above them, and what the upcall returned. */
    record Capture<T>(long ip, long sp, long bp, byte[] stack, T upcallResult) {
        SnapshotMemoryView snapshot() { return new SnapshotMemoryView(sp, stack); }
    }

    private static final MemoryIO IO = MemoryIO.getInstance();
    private static Path library;
    private static Library opened;

    static synchronized Path library() {
        if (library == null) {
            library = Gcc.sharedLibrary("unwchain", SOURCE);
            opened = Library.openLibrary(library.toString(), Library.NOW | Library.LOCAL);
            if (opened == null) throw new IllegalStateException("dlopen " + library + ": " + Library.getLastError());
        }
        return library;
    }

    static long symbol(String name) {
        library();
        long addr = opened.getSymbolAddress(name);
        if (addr == 0) throw new IllegalStateException("dlsym " + name + ": " + Library.getLastError());
        return addr;
    }

    /** Calls {@code a(capture, buf)}; {@code upcall} gets (ip, sp, bp) while the chain is live. */
    static <T> Capture<T> run(CaptureRoutine capture, Function<long[], T> upcall) { return run(symbol("a"), capture, upcall); }

    /**
     * Calls {@code entry(capture, buf)}, a native function that must call the routine once and
     * return {@code buf[5] + 6}; {@code upcall} gets (ip, sp, bp) while its frames are live.
     */
    static <T> Capture<T> run(long a, CaptureRoutine capture, Function<long[], T> upcall) {
        ThreadStack stack = ThreadStack.current();
        long maxCopy = stack.high() - stack.low();
        long buf = IO.allocateMemory(DATA + maxCopy, true);
        AtomicReference<T> result = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Closure closure = buffer -> {
            try {
                long p = buffer.getAddress(0);
                result.set(upcall.apply(new long[] {IO.getLong(p + IP), IO.getLong(p + SP), IO.getLong(p + BP)}));
            } catch (Throwable t) {
                failure.set(t);
            }
        };
        Closure.Handle handle = ClosureManager.getInstance().newClosure(closure,
                CallContext.getCallContext(Type.VOID, new Type[] {Type.POINTER}, CallingConvention.DEFAULT, false));
        try {
            IO.putLong(buf + STACK_TOP, stack.high());
            IO.putLong(buf + MAX_COPY, maxCopy);
            IO.putLong(buf + UPCALL, handle.getAddress());
            CallContext ctx = CallContext.getCallContext(Type.SINT64, new Type[] {Type.POINTER, Type.POINTER}, CallingConvention.DEFAULT, false);
            long r = Invoker.getInstance().invokeN2(ctx, a, capture.address, buf);
            if (failure.get() != null) throw new AssertionError("upcall failed", failure.get());
            long copied = IO.getLong(buf + COPIED);
            if (r != copied + 6) throw new AssertionError("a returned " + r + ", expected " + (copied + 6));
            byte[] bytes = new byte[(int) copied];
            IO.getByteArray(buf + DATA, bytes, 0, bytes.length);
            return new Capture<>(IO.getLong(buf + IP), IO.getLong(buf + SP), IO.getLong(buf + BP), bytes, result.get());
        } finally {
            handle.dispose();
            IO.freeMemory(buf);
        }
    }
}
