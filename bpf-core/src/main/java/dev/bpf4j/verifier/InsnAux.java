package dev.bpf4j.verifier;

import java.util.Arrays;

/**
 * What the verifier learnt about each instruction on every path it explored (the kernel's
 * {@code struct bpf_insn_aux_data}), for the engines: through which kinds of pointer each load,
 * store and atomic reaches memory ({@code ptr_type}), which helper arguments are stack pointers,
 * and which accesses it proved inside their region.
 *
 * <p>The engines keep one rule on it (docs/verifier.md, "Frames"): <em>only an access the verifier
 * typed as a stack pointer may touch a frame</em>. Where an engine places its frames differs (the
 * interpreter's in one native block, the JIT's on the thread's stack), so a pointer of any other
 * kind that a run-time check let into a frame would read or write what only one engine has there.
 * Engines ask {@link #touchesFrames} for loads, stores and atomics and {@link #argTouchesFrames}
 * for the memory a helper reaches through an argument.
 */
public final class InsnAux {
    /** Bit of a {@link RegType} in a mask: {@code 1 << ordinal}. */
    static int bit(RegType t) { return 1 << t.ordinal(); }

    private static final int STACK = bit(RegType.PTR_TO_STACK);

    /** Per pc: the pointer types the access's base had (0: not an access, or never reached). */
    private final int[] baseTypes;
    /** Per pc and argument register r1-r5 (index pc * 6 + r): the types a helper call's argument had. */
    private final int[] argTypes;
    /** Per pc: every path's access was proven inside its region (a stack frame, a map value of known size). */
    private final boolean[] proven;
    /** Per helper call pc: bits 1-5 of the argument registers no explored path set (null: none anywhere). */
    private final int[] unsetArgs;

    /** Bits 1-5: the argument registers r1-r5. */
    static final int ARG_REGS = 0x3e;

    InsnAux(int[] baseTypes, int[] argTypes, boolean[] proven, int[] unsetArgs) {
        this.baseTypes = baseTypes;
        this.argTypes = argTypes;
        this.proven = proven;
        this.unsetArgs = unsetArgs;
    }

    InsnAux(int[] baseTypes, int[] argTypes, boolean[] proven) { this(baseTypes, argTypes, proven, null); }

    /**
     * Bits 1-5 of the argument registers of the helper call at {@code pc} that no explored path set (a call
     * clobbered them, or a subprogram never got them). A helper whose prototype leaves them unchecked (Linux's
     * {@code bpf_trace_printk} takes r3-r5 unchecked; a user's helper) may still read them, and what a dead
     * register holds differs between engines (the JIT's rdx, the interpreter's last r3): both engines pass 0
     * for these instead.
     */
    public int unsetArgs(int pc) { return unsetArgs == null ? 0 : unsetArgs[pc]; }

    /** True when some helper call has an argument register no path set ({@link #unsetArgs}). */
    public boolean anyUnsetArgs() { return unsetArgs != null; }

    /** True when the load, store or atomic at {@code pc} may go through a stack pointer: it alone may touch a frame. */
    public boolean touchesFrames(int pc) { return (baseTypes[pc] & STACK) != 0; }

    /** True when every path reaches the access at {@code pc} through a stack pointer (the verifier proved it inside its frame). */
    public boolean stackOnly(int pc) { return baseTypes[pc] == STACK; }

    /** True when the verifier proved the access at {@code pc} inside its region on every path (engines could drop its check). */
    public boolean proven(int pc) { return proven[pc]; }

    /** True when argument register {@code reg} (1-5) of the helper call at {@code pc} may be a stack pointer. */
    public boolean argTouchesFrames(int pc, int reg) { return (argTypes[pc * 6 + reg] & STACK) != 0; }

    /** True when some argument of the helper call at {@code pc} may be a stack pointer. */
    public boolean anyArgTouchesFrames(int pc) {
        for (int r = 1; r <= 5; r++) if (argTouchesFrames(pc, r)) return true;
        return false;
    }

    /** The kernel's names of the access's pointer types at {@code pc} ({@code "fp"}, {@code "ctx|fp"}), empty where none. */
    public String baseTypeNames(int pc) { return names(baseTypes[pc]); }

    /** The same for argument register {@code reg} of the call at {@code pc}. */
    public String argTypeNames(int pc, int reg) { return names(argTypes[pc * 6 + reg]); }

    static String names(int mask) {
        StringBuilder b = new StringBuilder();
        for (RegType t : RegType.values()) {
            if ((mask & bit(t)) == 0) continue;
            if (b.length() > 0) b.append('|');
            b.append(t.logName);
        }
        return b.toString();
    }

    /** Number of slots the facts cover. */
    public int length() { return baseTypes.length; }

    @Override public String toString() {
        return "InsnAux" + Arrays.toString(Arrays.stream(baseTypes).mapToObj(InsnAux::names).toArray());
    }
}
