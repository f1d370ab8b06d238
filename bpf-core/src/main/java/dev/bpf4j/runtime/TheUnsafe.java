package dev.bpf4j.runtime;

import sun.misc.Unsafe;

import java.lang.reflect.Field;

/**
 * {@code sun.misc.Unsafe}'s instance, for the classes that read memory through it on JDK 17–21 (and
 * on 22+ where the JVM allows it: docs/jdk.md). Internal to bpf4j, not API. Getting the instance
 * does not warn on any JDK; its memory-access methods do from JDK 24 unless allowed.
 */
public final class TheUnsafe {
    private TheUnsafe() {}

    private static final Unsafe U;
    static {
        try {
            Field f = Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            U = (Unsafe) f.get(null);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    public static Unsafe get() { return U; }
}
