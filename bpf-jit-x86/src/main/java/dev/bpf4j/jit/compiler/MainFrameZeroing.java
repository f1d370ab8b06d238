package dev.bpf4j.jit.compiler;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.engine.StackUse;

import java.util.function.IntPredicate;

/**
 * How much of the main frame the prologue zeroes. A tail-call target reuses the frame and may read
 * any byte of it, which the interpreter shows as zero unless the caller wrote it. So the main
 * function zeroes down to its deepest r10-relative access (stores too, not only loads as
 * {@link StackUse#bytesToZero} needs): every byte below that one is untouched by the caller, and
 * the runtime zeroes that rest on the run's first tail call (later callers are targets whose
 * frame is then already fully defined).
 */
public final class MainFrameZeroing {
    private MainFrameZeroing() {}

    /**
     * Bytes below rbp the main function (slots {@code [0, endPc)}) zeroes in its prologue; a multiple
     * of 8. {@code forwardHelper}: the helpers that access memory only at and above their pointer
     * arguments ({@link StackUse#bytesToZero(Insn[], int, int, IntPredicate)}).
     */
    static int bytes(Insn[] insns, int endPc, IntPredicate forwardHelper) {
        return Math.max(StackUse.bytesToZero(insns, 0, endPc, forwardHelper), StackUse.deepestAccess(insns, 0, endPc));
    }
}
