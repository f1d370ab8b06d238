package dev.bpf4j.jit.probe;

/**
 * x86-64 {@code struct pt_regs} as the kernel lays it out (168 bytes), the context a probe's
 * program receives: {@code PT_REGS_PARM1(ctx)} is {@code *(u64 *)(ctx + 112)} (di).
 */
public final class PtRegsLayout {
    private PtRegsLayout() {}

    public static final int R15 = 0, R14 = 8, R13 = 16, R12 = 24, BP = 32, BX = 40, R11 = 48, R10 = 56,
            R9 = 64, R8 = 72, AX = 80, CX = 88, DX = 96, SI = 104, DI = 112, ORIG_AX = 120, IP = 128,
            CS = 136, FLAGS = 144, SP = 152, SS = 160;
    public static final int SIZE = 168;

    /** Offsets of the six SysV argument registers, PT_REGS_PARM1..6: di, si, dx, cx, r8, r9. */
    public static final int[] PARMS = {DI, SI, DX, CX, R8, R9};

    /** Linux x86-64 user segment selectors (__USER_CS, __USER_DS). */
    static final int USER_CS = 0x33, USER_DS = 0x2b;
}
