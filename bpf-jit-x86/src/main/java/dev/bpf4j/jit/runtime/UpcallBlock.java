package dev.bpf4j.jit.runtime;

import dev.bpf4j.jit.compiler.UpcallEmitter;
import dev.bpf4j.runtime.NativeMemory;

/**
 * The Java side of an upcall block ({@link UpcallEmitter}): what a JNI upcall method
 * {@code static long upcall(long block)} reads its arguments from, and the done word it sets as it
 * returns normally.
 */
public final class UpcallBlock {
    private UpcallBlock() {}

    /** Argument {@code i} (0-based) the generated function was called with. */
    public static long arg(long block, int i) { return NativeMemory.getLong(block + UpcallEmitter.ARGS + 8L * i); }

    /** Marks the upcall as returned normally (a block left unmarked means an exception escaped it). */
    public static void returned(long block) { NativeMemory.putLong(block + UpcallEmitter.DONE, 1); }
}
