package dev.bpf4j.jit.runtime;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;
import dev.bpf4j.jit.compiler.JavaThreadGate;
import dev.bpf4j.jit.compiler.JniRoute;
import dev.bpf4j.jit.compiler.Switches;
import dev.bpf4j.runtime.NativeMemory;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Finds the {@link JavaThreadGate} of this JVM: HotSpot's thread-local key and a JavaThread's layout.
 * <ul>
 *   <li>The key: among the pthread keys, the one whose value on this thread lies just below this
 *       thread's JNIEnv (the JNIEnv is a field of the JavaThread), at the same distance on a second
 *       thread. That distance is the JNIEnv's offset.</li>
 *   <li>{@code JavaThread::_thread_state} and {@code ThreadShadow::_pending_exception}: from the
 *       structure table HotSpot exports for its serviceability agent ({@code gHotSpotVMStructs}),
 *       the state checked inside a native call.</li>
 *   <li>The count of JNI critical regions: the one word that reads 1 inside a pinned jffi call.</li>
 *   <li>{@code JavaThread::_stack_base} and {@code _stack_size}, checked against this thread's stack.</li>
 * </ul>
 * Where any step fails (another JVM, another layout) there is no gate: {@link #reason()} says why,
 * and upcalls behave as before, entering Java on every thread. {@code -Dbpf4j.jit.javaThreadGate=false}
 * turns it off (for tests that show what it prevents).
 */
public final class HotSpotThreads {
    private HotSpotThreads() {}

    private static final int MAX_KEYS = 1024, MAX_ENV_OFFSET = 1 << 16;
    /** glibc keeps the values of keys below 32 in the thread descriptor: setting them never allocates. */
    private static final int GUARD_KEYS = 32;
    /** Bytes of a JavaThread searched for its critical-region count. */
    private static final int SNAPSHOT = 2048;
    private static final AtomicReference<String> REASON = new AtomicReference<>();

    private static final class Found {
        static final JavaThreadGate GATE = find();
    }

    /** The gate, or null where this JVM's threads could not be told apart (or it is switched off). */
    public static JavaThreadGate gate() { return Switches.on("bpf4j.jit.javaThreadGate") ? Found.GATE : null; }

    /** Why there is no gate, or null when there is one. */
    public static String reason() {
        gate();
        return Found.GATE == null ? REASON.get() : null;
    }

    private static JavaThreadGate find() {
        try {
            JniRoute jni = JniUpcall.find();
            if (jni == null) return fail("no JNI route");
            long getspecific = Library.getDefault().getSymbolAddress("pthread_getspecific");
            if (getspecific == 0) return fail("libc has no pthread_getspecific");
            long[] here = keyDistances(jni, getspecific);
            long[][] there = new long[1][];
            Thread t = new Thread(() -> there[0] = keyDistances(jni, getspecific), "bpf4j-hotspot-threads");
            t.start();
            t.join();
            int key = -1;
            for (int k = 0; k < MAX_KEYS; k++) {
                if (here[k] > 0 && here[k] == there[0][k]) {
                    if (key >= 0) return fail("two pthread keys look like HotSpot's (" + key + ", " + k + ")");
                    key = k;
                }
            }
            if (key < 0) return fail("no pthread key holds the JavaThread");
            long envOffset = here[key];
            long thread = pthreadGetspecific(getspecific, key);
            int stateOffset = fieldOffset("JavaThread", "_thread_state"), pendingOffset = fieldOffset("ThreadShadow", "_pending_exception");
            if (!inThread(stateOffset)) return fail("JavaThread::_thread_state not in gHotSpotVMStructs");
            int baseOffset = fieldOffset("JavaThread", "_stack_base"), sizeOffset = fieldOffset("JavaThread", "_stack_size");
            if (!inThread(baseOffset) || !inThread(sizeOffset)) {
                return fail("JavaThread::_stack_base/_stack_size not in gHotSpotVMStructs");
            }
            long top = NativeMemory.getLong(thread + baseOffset), size = NativeMemory.getLong(thread + sizeOffset);
            long sp = stackPointer();
            if (!(Long.compareUnsigned(sp, top) < 0 && Long.compareUnsigned(sp, top - size) > 0)) {
                return fail("JavaThread::_stack_base/_stack_size do not hold this thread's stack");
            }
            if (!inThread(pendingOffset) || NativeMemory.getLong(thread + pendingOffset) != 0) {
                return fail("ThreadShadow::_pending_exception not in gHotSpotVMStructs, or not 0 on a running thread");
            }
            int state = stateInNativeCall(thread + stateOffset);
            if (state != JavaThreadGate.THREAD_IN_NATIVE) return fail("JavaThread::_thread_state reads " + state + " inside a native call");
            int criticalOffset = criticalOffset(thread);
            if (criticalOffset < 0) return fail("no JavaThread word counts JNI critical regions");
            long setspecific = Library.getDefault().getSymbolAddress("pthread_setspecific");
            int guardKey = createKey();
            if (setspecific == 0 || guardKey < 0 || guardKey >= GUARD_KEYS) return fail("no pthread key under " + GUARD_KEYS + " for the guard word (got " + guardKey + ")");
            return new JavaThreadGate(getspecific, setspecific, guardKey, envOffset, NativeMemory.getLong(thread), stateOffset, criticalOffset,
                    pendingOffset, baseOffset, sizeOffset);
        } catch (Throwable e) {
            return fail(e.toString());
        }
    }

    /** Whether a field offset from the structure table lies within a JavaThread's first 64 KiB (-1: not found). */
    private static boolean inThread(int offset) { return offset > 0 && offset < MAX_ENV_OFFSET; }

    /** rsp inside a native call of this thread. */
    private static long stackPointer() {
        try (ExecutableMemory read = ExecutableMemory.of(new byte[] {0x48, (byte) 0x89, (byte) 0xe0, (byte) 0xc3})) { /* mov rax, rsp; ret */
            CallContext cc = CallContext.getCallContext(Type.SINT64, new Type[0], CallingConvention.DEFAULT, false);
            return Invoker.getInstance().invokeN0(cc, read.address());
        }
    }

    /** The int at {@code address} read by native code this thread calls (through jffi, so in state {@code _thread_in_native}). */
    private static int stateInNativeCall(long address) {
        try (ExecutableMemory read = ExecutableMemory.of(new byte[] {(byte) 0x8b, 0x07, (byte) 0xc3})) { /* mov eax, [rdi]; ret */
            CallContext cc = CallContext.getCallContext(Type.SINT32, new Type[] {Type.SINT64}, CallingConvention.DEFAULT, false);
            return (int) Invoker.getInstance().invokeN1(cc, read.address(), address);
        }
    }

    /**
     * The JavaThread's count of JNI critical regions ({@code _jni_active_critical}, not in the
     * structure table): the one int of the thread's first {@value #SNAPSHOT} bytes that reads 1 inside
     * a native call jffi makes with a pinned array (GetPrimitiveArrayCritical) and 0 inside a plain one.
     * -1 when not exactly one does.
     */
    private static int criticalOffset(long thread) {
        byte[] copy = {0x48, (byte) 0x89, (byte) 0xf7, 0x48, (byte) 0x89, (byte) 0xd6,          /* mov rdi, rsi; mov rsi, rdx */
                (byte) 0xb9, (byte) (SNAPSHOT / 8), (byte) (SNAPSHOT / 8 >> 8), 0, 0,        /* mov ecx, SNAPSHOT / 8 */
                (byte) 0xf3, 0x48, (byte) 0xa5, (byte) 0xc3};                                  /* rep movsq; ret */
        long inside = NativeMemory.allocate(SNAPSHOT), outside = NativeMemory.allocate(SNAPSHOT);
        try (ExecutableMemory code = ExecutableMemory.of(copy)) {
            com.kenai.jffi.Function f = new com.kenai.jffi.Function(code.address(), Type.VOID, Type.POINTER, Type.SINT64, Type.SINT64);
            com.kenai.jffi.HeapInvocationBuffer pinned = new com.kenai.jffi.HeapInvocationBuffer(f);
            pinned.putArray(new byte[16], 0, 16, com.kenai.jffi.ArrayFlags.PINNED | com.kenai.jffi.ArrayFlags.IN);
            pinned.putLong(inside);
            pinned.putLong(thread);
            Invoker.getInstance().invokeInt(f, pinned);
            com.kenai.jffi.HeapInvocationBuffer plain = new com.kenai.jffi.HeapInvocationBuffer(f);
            plain.putAddress(0);
            plain.putLong(outside);
            plain.putLong(thread);
            Invoker.getInstance().invokeInt(f, plain);
            int found = -1;
            for (int off = 0; off < SNAPSHOT; off += 4) {
                if (NativeMemory.getInt(inside + off) == 1 && NativeMemory.getInt(outside + off) == 0) {
                    if (found >= 0) return -1;
                    found = off;
                }
            }
            return found;
        } finally {
            NativeMemory.free(inside);
            NativeMemory.free(outside);
        }
    }

    /** A new pthread key without destructor, or -1. */
    private static int createKey() {
        long create = Library.getDefault().getSymbolAddress("pthread_key_create");
        if (create == 0) return -1;
        long slot = NativeMemory.allocate(8);
        try {
            NativeMemory.putLong(slot, -1);
            CallContext cc = CallContext.getCallContext(Type.SINT32, new Type[] {Type.SINT64, Type.SINT64}, CallingConvention.DEFAULT, false);
            if ((int) Invoker.getInstance().invokeN2(cc, create, slot, 0) != 0) return -1;
            return NativeMemory.getInt(slot);
        } finally {
            NativeMemory.free(slot);
        }
    }

    private static JavaThreadGate fail(String why) {
        REASON.set(why);
        return null;
    }

    /** Per pthread key: this thread's JNIEnv minus the key's value when that is small and positive, else 0. */
    private static long[] keyDistances(JniRoute jni, long getspecific) {
        long[] out = new long[MAX_KEYS];
        long slot = NativeMemory.allocate(8);
        try {
            CallContext cc = CallContext.getCallContext(Type.SINT32, new Type[] {Type.SINT64, Type.SINT64, Type.SINT32}, CallingConvention.DEFAULT, false);
            if ((int) Invoker.getInstance().invokeN3(cc, jni.getEnv(), jni.vm(), slot, jni.version()) != 0) return out;
            long env = NativeMemory.getLong(slot);
            for (int k = 0; k < MAX_KEYS; k++) {
                long v = pthreadGetspecific(getspecific, k);
                long d = env - v;
                if (v != 0 && d > 0 && d < MAX_ENV_OFFSET && (d & 7) == 0) out[k] = d;
            }
            return out;
        } finally {
            NativeMemory.free(slot);
        }
    }

    private static long pthreadGetspecific(long fn, int key) {
        CallContext cc = CallContext.getCallContext(Type.SINT64, new Type[] {Type.UINT32}, CallingConvention.DEFAULT, false);
        return Invoker.getInstance().invokeN1(cc, fn, key);
    }

    /** The offset of non-static field {@code type::field} from {@code gHotSpotVMStructs}, or -1. */
    static int fieldOffset(String type, String field) {
        Library lib = Library.getDefault();
        long table = lib.getSymbolAddress("gHotSpotVMStructs");
        long[] at = new long[5];
        String[] names = {"gHotSpotVMStructEntryTypeNameOffset", "gHotSpotVMStructEntryFieldNameOffset",
                "gHotSpotVMStructEntryIsStaticOffset", "gHotSpotVMStructEntryOffsetOffset", "gHotSpotVMStructEntryArrayStride"};
        for (int i = 0; i < names.length; i++) {
            long a = lib.getSymbolAddress(names[i]);
            if (a == 0 || table == 0) return -1;
            at[i] = NativeMemory.getLong(a);
        }
        long entry = NativeMemory.getLong(table);
        for (int n = 0; entry != 0 && n < 100_000; n++, entry += at[4]) {
            long typeName = NativeMemory.getLong(entry + at[0]);
            if (typeName == 0) break;
            long name = NativeMemory.getLong(entry + at[1]);
            if (name == 0 || NativeMemory.getInt(entry + at[2]) != 0) continue;
            if (type.equals(cString(typeName)) && field.equals(cString(name))) return (int) NativeMemory.getLong(entry + at[3]);
        }
        return -1;
    }

    private static String cString(long at) {
        byte[] b = new byte[64];
        int n = 0;
        while (n < b.length && (b[n] = NativeMemory.getByte(at + n)) != 0) n++;
        return new String(Arrays.copyOf(b, n), StandardCharsets.US_ASCII);
    }
}
