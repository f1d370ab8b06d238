package dev.bpf4j.jit.compiler;

/**
 * What generated code checks before it enters Java on the current thread ({@link UpcallEmitter}),
 * found at run time by {@code runtime.HotSpotThreads}. HotSpot's own threads call native code too —
 * {@code malloc} from the VM thread, GC workers and compiler threads — and none of them may run
 * Java: a JNI call from a compiler thread stops the JVM ({@code guarantee(can_call_java())}),
 * attaching the VM thread fails and jffi then crashes. So Java is entered only from:
 * <ul>
 *   <li>a JavaThread of HotSpot's plain class ({@code vtable} = the first word of the thread that
 *       set bpf4j up; compiler, service and other VM-internal JavaThreads have their own class), in
 *       state {@code _thread_in_native} (4): it is in native code it called itself, not inside the
 *       VM, which calls {@code malloc} for Java threads too (class loading, the JIT, GC), and
 *       outside JNI critical regions, with no exception pending.</li>
 * </ul>
 * A thread the JVM does not know is not attached either: a HotSpot thread that is still starting
 * looks just like one, and attaching it from a {@code malloc} inside {@code pthread_getattr_np}
 * deadlocks on that thread's own lock. Native threads that should run Java helpers attach
 * themselves first (any JNI or jffi call into Java does).
 * A refused hit ends its run quietly and counts as missed, like the kernel's recursion check.
 *
 * <p>The upcall function also keeps a guard word per thread (pthread key {@code guardKey}, under 32,
 * so that setting it never allocates): set from its entry until Java is entered, it refuses a call
 * that comes back meanwhile — a probe on {@code malloc} hit inside GetEnv's first allocation of
 * libjvm's thread-local block, or inside the attaching of a thread.
 *
 * @param getspecific {@code void *pthread_getspecific(pthread_key_t)}
 * @param setspecific {@code int pthread_setspecific(pthread_key_t, const void *)}
 * @param guardKey    bpf4j's own key for the guard word
 * @param envOffset   a JavaThread's JNIEnv minus its address
 * @param vtable      the first word of a plain JavaThread
 * @param stateOffset {@code JavaThread::_thread_state} (the VM's own structure table, {@code gHotSpotVMStructs})
 * @param criticalOffset the JavaThread's count of JNI critical regions: inside one (jffi passes pinned
 *                    arrays so) Java must not run — an allocation would wait for the GC this very
 *                    region holds off (seen: a probe on malloc hung {@code GCLocker::stall_until_clear})
 * @param pendingOffset {@code ThreadShadow::_pending_exception}: with one pending, the native code's
 *                    exception would be lost to the upcall's own handling
 * @param stackBaseOffset {@code JavaThread::_stack_base} (the top), with {@code stackSizeOffset}: a thread
 *                    with less than {@link #STACK_NEEDED} left is refused
 */
public record JavaThreadGate(long getspecific, long setspecific, int guardKey, long envOffset, long vtable, int stateOffset,
                             int criticalOffset, int pendingOffset, int stackBaseOffset, int stackSizeOffset) {
    /**
     * Stack a Java call needs below rsp: HotSpot's shadow zone (20 pages by default) and its guard
     * zones (4); with less, the JNI call throws StackOverflowError before the method runs.
     */
    public static final int STACK_NEEDED = 128 * 1024;
    /** {@code _thread_in_native} in HotSpot's {@code JavaThreadState}. */
    public static final int THREAD_IN_NATIVE = 4;
}
