package dev.bpf4j.jit.compiler;

/**
 * The JNI calls generated code makes to enter a Java helper without the jffi closure
 * ({@link UpcallEmitter}); found at run time by {@code runtime.JniUpcall}. JNI's function tables
 * are global, so one address of each function serves every thread.
 *
 * @param vm         the process's {@code JavaVM *}
 * @param getEnv     {@code jint GetEnv(JavaVM *, void **env, jint version)}
 * @param version    the JNI version asked of GetEnv ({@link #JNI_VERSION_1_6})
 * @param callStatic {@code jlong CallStaticLongMethodA(JNIEnv *, jclass, jmethodID, const jvalue *)}
 * @param clear      {@code void ExceptionClear(JNIEnv *)}
 * @param owner      a global reference to the class of the method
 * @param upcall     the method's id: {@code static long upcall(long block)}, its arguments in an upcall block ({@link UpcallEmitter})
 */
public record JniRoute(long vm, long getEnv, int version, long callStatic, long clear, long owner, long upcall) {
    /** JNI 1.6, which every JVM since 6 answers. */
    public static final int JNI_VERSION_1_6 = 0x10006;
}
