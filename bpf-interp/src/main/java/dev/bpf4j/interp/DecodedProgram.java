package dev.bpf4j.interp;

import dev.bpf4j.runtime.BpfException;
import dev.bpf4j.runtime.Helper;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.HelperSpec;
import dev.bpf4j.runtime.LookupInlining;
import dev.bpf4j.verifier.InsnAux;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A program pre-decoded for the dispatch loop: parallel arrays indexed by pc, with one extra
 * {@link InsnCode#TRAP} slot past the end. Immutable, shared by every thread that runs it.
 */
final class DecodedProgram {
    /** Callback handles: {@code 0xbf} tag, a per-program serial, then the target pc in the low 24 bits. */
    static final int PC_BITS = 24;
    private static final long TAG = 0xbfL << 56;
    private static final AtomicLong SERIALS = new AtomicLong();

    final String name;
    /**
     * Packed words, see {@link InsnCode}: one per slot, a trap slot, then the 64-bit constant of
     * each lddw (for a function address, its callback handle), indexed by the lddw's imm field.
     */
    final long[] code;
    /** Number of real instruction slots. */
    private final int slots;
    /** The helper body of each {@code call helper} slot, null elsewhere. */
    final Helper[] helpers;
    final HelperSpec[] helperSpecs;
    /** Every helper of the load: what a {@code callx} may call, by the id in its register. */
    final HelperRegistry registry;
    /** The map of each {@link InsnCode#INLINE_LOOKUP} and {@link InsnCode#INLINE_UPDATE} slot ({@link dev.bpf4j.helpers.MapHelperInlining}), null elsewhere. */
    final LookupInlining.Target[] inlineMaps;
    final int entryArgs;
    /**
     * Bytes below r10 that any frame of this program can read or write: the whole frame when r10
     * escapes, else down to the deepest r10-relative access ({@link dev.bpf4j.engine.StackUse}
     * over the whole program, so it bounds every function). Entering a frame zeroes only these;
     * the rest of the main frame is zeroed by the first tail call, as in the JIT.
     */
    final int frameBytesToZero;
    /** The high bits every callback handle of this program carries. */
    final long handleBase;
    /**
     * This program's own copy of the dispatch loop ({@link OwnLoops}), once it has run often enough;
     * null before. Written by whichever thread counts the run that reaches the threshold; a racing
     * run may still use the shared loop, which is just as correct.
     */
    volatile DispatchLoop ownLoop;
    /** Runs counted towards {@link #ownLoop} (a racy count: an approximate threshold is enough). */
    int runs;
    /** The verifier's facts; null for a program loaded without it, whose checked accesses may reach any live frame. */
    private final InsnAux aux;

    /** True when the checked access at {@code pc} may touch a live frame: the verifier typed its base as a stack pointer. */
    boolean touchesFrames(int pc) { return aux == null || aux.touchesFrames(pc); }

    /** True when the helper call at {@code pc} may hand memory in a live frame through argument {@code reg} (0: any argument). */
    boolean argTouchesFrames(int pc, int reg) {
        return aux == null || (reg == 0 ? aux.anyArgTouchesFrames(pc) : aux.argTouchesFrames(pc, reg));
    }

    /** Bits 1-5 of the argument registers no path set at the helper call at {@code pc}: passed as 0 (InsnAux.unsetArgs). */
    int unsetArgs(int pc) { return aux == null ? 0 : aux.unsetArgs(pc); }

    /** True when no verifier facts bound this program: a checked access may then leave a window on a frame. */
    boolean unverified() { return aux == null; }

    /** Pcs that an {@code lddw src=4} names: the only valid callback targets. */
    private final boolean[] callbackTarget;

    DecodedProgram(String name, long[] code, int slots, HelperSpec[] helperSpecs, HelperRegistry registry,
                   LookupInlining.Target[] inlineMaps, int entryArgs, boolean[] callbackTarget, int frameBytesToZero, InsnAux aux) {
        this.aux = aux;
        this.registry = registry;
        this.inlineMaps = inlineMaps;
        this.frameBytesToZero = frameBytesToZero;
        this.name = name;
        this.code = code;
        this.slots = slots;
        this.helperSpecs = helperSpecs;
        this.helpers = new Helper[helperSpecs.length];
        for (int i = 0; i < helperSpecs.length; i++) helpers[i] = helperSpecs[i] == null ? null : helperSpecs[i].body();
        this.entryArgs = entryArgs;
        this.callbackTarget = callbackTarget;
        this.handleBase = TAG | ((SERIALS.incrementAndGet() & 0xffffffffL) << PC_BITS);
    }

    /** Number of real instruction slots. */
    int length() { return slots; }

    /** The handle an {@code lddw src=4} to {@code pc} loads. */
    long handle(int pc) { return handleBase | pc; }

    /** The subprogram start behind {@code handle}, or -1 when it is not a function address of this program. */
    int callbackPc(long handle) {
        if ((handle & ~((1L << PC_BITS) - 1)) != handleBase) return -1;
        int pc = (int) (handle & ((1L << PC_BITS) - 1));
        return pc < length() && callbackTarget[pc] ? pc : -1;
    }

    /** The error for executing a TRAP slot or an opcode the dispatch loop does not know. */
    BpfException illegal(int pc) {
        String why;
        if (pc == length()) why = "ran past the last instruction (missing exit?)";
        else if (InsnCode.opcode(code[pc]) == InsnCode.TRAP) why = "jumped into the second slot of an lddw";
        else why = String.format("unknown opcode 0x%02x", InsnCode.opcode(code[pc]));
        return new BpfException("program '" + name + "' pc " + pc + ": illegal instruction: " + why);
    }
}
