package dev.bpf4j.jit.runtime;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;
import dev.bpf4j.jit.compiler.JniRoute;
import dev.bpf4j.jit.compiler.UpcallEmitter;
import dev.bpf4j.runtime.NativeMemory;

import java.nio.charset.StandardCharsets;

/**
 * Finds the {@link JniRoute} into {@link HelperBridge#upcall}, for generated code that calls Java
 * helpers through JNI itself instead of the jffi closure (libffi's trampoline, jffi's dispatch and its
 * {@code Closure.Buffer}: ≈35 ns of the ≈130 a Java helper cost through it).
 *
 * <p>The class is found with JNI's {@code FindClass}, called through jffi, so it resolves through the
 * class loader of jffi's own native method: a handshake ({@link HelperBridge#handshake}, which answers
 * this copy's random {@link HelperBridge#NONCE}) makes sure it found this copy of the class and not
 * one of another loader. Where any step fails, {@link #find} answers null and helpers keep the jffi
 * closure. The same steps bind {@link JniEntry}'s native method ({@link #registerNative}).
 */
public final class JniUpcall {
    private JniUpcall() {}

    // Indices in JNI's function tables (jni.h: struct JNIInvokeInterface_ and JNINativeInterface_).
    private static final int GET_ENV = 6;
    private static final int FIND_CLASS = 6, EXCEPTION_CLEAR = 17, NEW_GLOBAL_REF = 21;
    private static final int GET_STATIC_METHOD_ID = 113, CALL_STATIC_LONG_METHOD_A = 134, REGISTER_NATIVES = 215;

    // The scratch block of withClass: JavaVM * and count, the class name, a method name and its
    // signature, a JNINativeMethod.
    private static final int CLASS_NAME = 16, METHOD_NAME = 384, SIGNATURE = 448, NAME_ROOM = 64;
    private static final int NATIVE_METHOD = 512, SCRATCH_BYTES = NATIVE_METHOD + 24;

    /** Set up on first use: {@link JniEntry} initialises this class for every JIT run, Java helpers or not. */
    private static final class Bridge {
        static final JniRoute FOUND = route(HelperBridge.class, HelperBridge.NONCE);
    }

    /** The JNI route into {@link HelperBridge#upcall}, or null where it cannot be set up (then use the jffi closure). */
    public static JniRoute find() { return Bridge.FOUND; }

    private static CallContext longs(int n) {
        Type[] p = new Type[n];
        java.util.Arrays.fill(p, Type.SINT64);
        return CallContext.getCallContext(Type.SINT64, p, CallingConvention.DEFAULT, false);
    }

    /**
     * The route into {@code owner}'s {@code static long upcall(long block)} (an {@link UpcallBlock}),
     * checked by its {@code static long handshake()} answering {@code nonce}; null where JNI cannot be
     * reached, the class is not found through jffi's loader, or the handshake fails.
     */
    public static JniRoute route(Class<?> owner, long nonce) {
        return withClass(owner, nonce, (jni, scratch) -> {
            long upcall = jni.staticMethod(scratch, "upcall", "(J)J");
            return upcall == 0 ? null : new JniRoute(jni.vm, jni.getEnv, JniRoute.JNI_VERSION_1_6,
                    jni.fn(CALL_STATIC_LONG_METHOD_A), jni.fn(EXCEPTION_CLEAR), jni.classRef, upcall);
        });
    }

    /**
     * Binds {@code owner}'s {@code static native} method {@code name} of JNI signature {@code signature}
     * to the native function at {@code function} ({@code RegisterNatives}), the class checked by its
     * handshake as for {@link #route}; false where any step fails (the method stays unbound).
     */
    static boolean registerNative(Class<?> owner, long nonce, String name, String signature, long function) {
        Boolean bound = withClass(owner, nonce, (jni, scratch) -> {
            long method = scratch + NATIVE_METHOD; // JNINativeMethod {char *name; char *signature; void *fnPtr;}
            NativeMemory.putLong(method, cString(scratch + METHOD_NAME, NAME_ROOM, name));
            NativeMemory.putLong(method + 8, cString(scratch + SIGNATURE, NAME_ROOM, signature));
            NativeMemory.putLong(method + 16, function);
            return (int) Invoker.getInstance().invokeN4(longs(4), jni.fn(REGISTER_NATIVES), jni.env, jni.classRef, method, 1) == 0;
        });
        return Boolean.TRUE.equals(bound);
    }

    /** A class found through JNI on the calling thread: what the steps after {@link #withClass} need. */
    private record Found(long vm, long getEnv, long env, long table, long classRef) {
        long fn(int index) { return JniUpcall.fn(table, index); }

        long staticMethod(long scratch, String name, String signature) {
            return Invoker.getInstance().invokeN4(longs(4), fn(GET_STATIC_METHOD_ID), env, classRef,
                    cString(scratch + METHOD_NAME, NAME_ROOM, name), cString(scratch + SIGNATURE, NAME_ROOM, signature));
        }
    }

    private interface ClassStep<T> { T apply(Found jni, long scratch); }

    /**
     * Finds {@code owner} through JNI as a global reference, checks that its handshake answers
     * {@code nonce}, and applies {@code step}; null where any of it fails or throws. {@code step} may
     * use {@code scratch} from {@link #METHOD_NAME} on.
     */
    private static <T> T withClass(Class<?> owner, long nonce, ClassStep<T> step) {
        if (!"amd64".equals(System.getProperty("os.arch")) || !"Linux".equals(System.getProperty("os.name"))) return null;
        long scratch = 0;
        try {
            Invoker in = Invoker.getInstance();
            long created = Library.getDefault().getSymbolAddress("JNI_GetCreatedJavaVMs");
            if (created == 0) return null;
            scratch = NativeMemory.allocate(SCRATCH_BYTES);
            // jint JNI_GetCreatedJavaVMs(JavaVM **vmBuf, jsize bufLen, jsize *nVMs)
            if ((int) in.invokeN3(longs(3), created, scratch, 1, scratch + 8) != 0 || NativeMemory.getInt(scratch + 8) != 1) return null;
            long vm = NativeMemory.getLong(scratch);
            long getEnv = NativeMemory.getLong(NativeMemory.getLong(vm) + 8L * GET_ENV);
            if ((int) in.invokeN3(longs(3), getEnv, vm, scratch, JniRoute.JNI_VERSION_1_6) != 0) return null;
            long env = NativeMemory.getLong(scratch);
            long table = NativeMemory.getLong(env);
            long classRef;
            try (ExecutableMemory globalClass = ExecutableMemory.of(UpcallEmitter.globalClass())) {
                // A failing FindClass or GetStaticMethodID leaves an exception, which jffi's call throws here.
                classRef = in.invokeN4(longs(4), globalClass.address(), env,
                        cString(scratch + CLASS_NAME, METHOD_NAME - CLASS_NAME, owner.getName().replace('.', '/')), fn(table, FIND_CLASS), fn(table, NEW_GLOBAL_REF));
            }
            if (classRef == 0) return null;
            // (should a check below fail, the global reference stays: one per class, at most once)
            Found jni = new Found(vm, getEnv, env, table, classRef);
            long handshake = jni.staticMethod(scratch, "handshake", "()J");
            if (handshake == 0) return null;
            if (in.invokeN4(longs(4), jni.fn(CALL_STATIC_LONG_METHOD_A), env, classRef, handshake, 0) != nonce) return null; // another loader's class
            return step.apply(jni, scratch);
        } catch (Throwable t) {
            return null;
        } finally {
            if (scratch != 0) NativeMemory.free(scratch);
        }
    }

    private static long fn(long table, int index) { return NativeMemory.getLong(table + 8L * index); }

    /** Writes {@code s} NUL-terminated at {@code at} (at most {@code room} bytes) and returns {@code at}. */
    private static long cString(long at, int room, String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        if (b.length >= room) throw new IllegalArgumentException("name too long: " + s);
        NativeMemory.write(at, b, 0, b.length);
        NativeMemory.putByte(at + b.length, (byte) 0);
        return at;
    }
}
