package dev.bpf4j.verifier;

import dev.bpf4j.runtime.Limits;

/**
 * One frame of a verifier state ({@code struct bpf_func_state}): registers r0-r10 and the 512-byte
 * stack, each byte typed as the kernel types it ({@code STACK_INVALID}, {@code STACK_MISC},
 * {@code STACK_ZERO}, {@code STACK_SPILL}); an 8-byte slot whose bytes are all SPILL holds the
 * register state in {@link #spilled}.
 */
final class FuncState {
    static final byte STACK_INVALID = 0, STACK_MISC = 1, STACK_ZERO = 2, STACK_SPILL = 3;
    static final int SLOTS = Limits.STACK_SIZE / 8;

    final RegState[] regs = new RegState[11];
    /** Byte {@code i} is the stack byte at {@code r10 - 512 + i}. */
    final byte[] stack = new byte[Limits.STACK_SIZE];
    final RegState[] spilled = new RegState[SLOTS];
    /** Which frame this is (0 = main) and where its function starts. */
    final int frameno;
    final int subprogStart;
    /** The caller's call instruction (-1 for main); a callback's helper call. */
    final int callsite;
    /** True when this frame runs a callback a helper calls: its exit returns to after that helper call. */
    final boolean callback;

    FuncState(int frameno, int subprogStart, int callsite, boolean callback) {
        this(frameno, subprogStart, callsite, callback, false);
        for (int i = 0; i < regs.length; i++) regs[i] = RegState.notInit();
        RegState fp = RegState.pointer(RegType.PTR_TO_STACK, 0);
        fp.frameno = frameno;
        regs[10] = fp;
    }

    /** A frame whose registers its caller fills (a copy: every state copy makes one per frame). */
    private FuncState(int frameno, int subprogStart, int callsite, boolean callback, boolean unused) {
        this.frameno = frameno;
        this.subprogStart = subprogStart;
        this.callsite = callsite;
        this.callback = callback;
    }

    FuncState copy() {
        FuncState f = new FuncState(frameno, subprogStart, callsite, callback, false);
        for (int i = 0; i < regs.length; i++) f.regs[i] = regs[i].copy();
        System.arraycopy(stack, 0, f.stack, 0, stack.length);
        for (int i = 0; i < SLOTS; i++) if (spilled[i] != null) f.spilled[i] = spilled[i].copy();
        return f;
    }

    /** The slot index of stack offset {@code off} (in [-512, 0)). */
    static int slot(long off) { return (int) ((off + Limits.STACK_SIZE) >> 3); }

    static int byteIndex(long off) { return (int) (off + Limits.STACK_SIZE); }
}
