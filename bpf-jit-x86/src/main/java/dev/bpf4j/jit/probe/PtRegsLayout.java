package dev.bpf4j.jit.probe;

import dev.bpf4j.runtime.PtRegs;

/**
 * The offsets of {@link PtRegs} under the names the trampoline emitter uses:
 * x86-64 {@code struct pt_regs} as the kernel lays it out (168 bytes), the context a probe's
 * program receives: {@code PT_REGS_PARM1(ctx)} is {@code *(u64 *)(ctx + 112)} (di).
 */
public final class PtRegsLayout {
    private PtRegsLayout() {}

    public static final int R15 = PtRegs.OFF_R15, R14 = PtRegs.OFF_R14, R13 = PtRegs.OFF_R13, R12 = PtRegs.OFF_R12,
            BP = PtRegs.OFF_BP, BX = PtRegs.OFF_BX, R11 = PtRegs.OFF_R11, R10 = PtRegs.OFF_R10, R9 = PtRegs.OFF_R9,
            R8 = PtRegs.OFF_R8, AX = PtRegs.OFF_AX, CX = PtRegs.OFF_CX, DX = PtRegs.OFF_DX, SI = PtRegs.OFF_SI,
            DI = PtRegs.OFF_DI, ORIG_AX = PtRegs.OFF_ORIG_AX, IP = PtRegs.OFF_IP, CS = PtRegs.OFF_CS,
            FLAGS = PtRegs.OFF_FLAGS, SP = PtRegs.OFF_SP, SS = PtRegs.OFF_SS;
    public static final int SIZE = PtRegs.SIZE;

    /** Offsets of the six SysV argument registers, PT_REGS_PARM1..6: di, si, dx, cx, r8, r9. */
    public static final int[] PARMS = {DI, SI, DX, CX, R8, R9};

    /** Linux x86-64 user segment selectors (__USER_CS, __USER_DS). */
    static final int USER_CS = (int) PtRegs.USER_CS, USER_DS = (int) PtRegs.USER_SS;
}
