package dev.bpf4j.jit.runtime;

import dev.bpf4j.jit.compiler.UpcallEmitter;

/**
 * The address JIT code calls for a Java helper: a generated function that enters
 * {@code HelperBridge} through JNI itself ({@link UpcallEmitter}, symbol {@value #SYMBOL} in the code
 * map), or the bridge's jffi closure where the JNI route cannot be set up or
 * {@code -Dbpf4j.jit.jniUpcall=false} (read at each load, for A/B timing). Both run the same
 * dispatch; the generated function falls back to the closure on threads the JVM does not know.
 */
final class HelperUpcall {
    private HelperUpcall() {}

    static final String SYMBOL = "bpf4j_helper_upcall";

    private static final class Generated {
        /** Mapped once for the life of the JVM; null where JNI cannot be reached. Argument 5 is the env block. */
        static final ExecutableMemory CODE = GeneratedFunctions.jniUpcall(JniUpcall.find(), HelperBridge.address(), 6, 5, -1, SYMBOL);
    }

    /** Where JIT code calls a Java helper ({@code long bridge(r1, r2, r3, r4, r5, env)}). */
    static long address() {
        ExecutableMemory generated = GeneratedFunctions.jniUpcalls() ? Generated.CODE : null;
        return generated != null ? generated.address() : HelperBridge.address();
    }
}
