package dev.bpf4j.jvm;

import dev.bpf4j.runtime.BpfException;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.HelperSpec;
import dev.bpf4j.verifier.InsnAux;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A program compiled to bytecode: its parts (hidden classes, {@link JvmCode}), the pc facts the run
 * state needs (helpers, call targets, callback targets, the verifier's frame facts) and the frame
 * depth to zero. Immutable, shared by every thread that runs it.
 */
final class JvmProgram {
    /** Callback handles: a {@code 0xb7} tag, a per-program serial, then the target pc in the low 24 bits. */
    static final int PC_BITS = 24;
    private static final long TAG = 0xb7L << 56;
    private static final AtomicLong SERIALS = new AtomicLong();

    final String name;
    /** The hidden classes, each holding the regions of a range of pcs; one for any program of ordinary size. */
    JvmCode[] parts;
    /** The part of each pc; null when there is one part. */
    int[] partOf;
    final int length;
    final HelperSpec[] helpers;
    final HelperRegistry registry;
    /** Target pc of each {@code call local}, by the call's pc; -1 elsewhere. */
    final int[] callTarget;
    private final boolean[] callbackTarget;
    final int entryArgs;
    final int frameBytesToZero;
    final long handleBase;
    private final InsnAux aux;
    /** Per pc: a load or store the code makes without a memory check (r10 + constant, the verifier's or RegionProof's proofs). */
    final boolean[] unchecked;
    /**
     * The guarded copy of this code, null when none: the same program with the data-buffer accesses
     * of main that {@code RegionProof} proved left unchecked, which a run enters only when its entry
     * r1/r2 pass the guard ({@link JvmMachine#reset}). Set once, before the program is handed out.
     */
    JvmProgram guarded;
    /** The guarded copy stores through its proofs: the guard asks for a writable region. */
    boolean guardWritable;

    JvmProgram(String name, int length, HelperSpec[] helpers, HelperRegistry registry, int[] callTarget, boolean[] callbackTarget,
               int entryArgs, int frameBytesToZero, InsnAux aux, long handleBase) {
        this.name = name;
        this.length = length;
        this.helpers = helpers;
        this.registry = registry;
        this.callTarget = callTarget;
        this.callbackTarget = callbackTarget;
        this.entryArgs = entryArgs;
        this.frameBytesToZero = frameBytesToZero;
        this.aux = aux;
        this.handleBase = handleBase;
        this.unchecked = new boolean[length];
    }

    /** The handles of a new program; its guarded copy takes the same, so a handle works in either. */
    static long newHandleBase() { return TAG | ((SERIALS.incrementAndGet() & 0xffffffffL) << PC_BITS); }

    /** The code that holds {@code pc}. */
    JvmCode code(int pc) { return partOf == null ? parts[0] : parts[partOf[pc]]; }

    /** The handle an {@code lddw src=4} to {@code pc} loads. */
    long handle(int pc) { return handleBase | pc; }

    /** The subprogram start behind {@code handle}, or -1 when it is not a function address of this program. */
    int callbackPc(long handle) {
        if ((handle & ~((1L << PC_BITS) - 1)) != handleBase) return -1;
        int pc = (int) (handle & ((1L << PC_BITS) - 1));
        return pc < length && callbackTarget[pc] ? pc : -1;
    }

    /** True when the checked access at {@code pc} may touch a live frame: the verifier typed its base as a stack pointer. */
    boolean touchesFrames(int pc) { return aux == null || aux.touchesFrames(pc); }

    /** True when the helper call at {@code pc} may hand memory in a live frame through argument {@code reg} (0: any argument). */
    boolean argTouchesFrames(int pc, int reg) {
        return aux == null || (reg == 0 ? aux.anyArgTouchesFrames(pc) : aux.argTouchesFrames(pc, reg));
    }

    boolean unverified() { return aux == null; }

    /** Running past the last instruction: the interpreter's error, word for word. */
    BpfException ranPastEnd() {
        return new BpfException("program '" + name + "' pc " + length + ": illegal instruction: ran past the last instruction (missing exit?)");
    }
}
