package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.x86.X86Reg;

/**
 * The BPF-to-x86 register table (the kernel x86 JIT's, DESIGN.md "JIT ABI"). R1-R5 are the SysV
 * argument registers, so a helper is a plain {@code call}; R6-R9 and R10 are callee-saved, so they
 * survive helper calls; R0 is the return register.
 */
public final class RegMap {
    private RegMap() {}

    private static final X86Reg[] BPF_TO_X86 = {
        X86Reg.RAX,  // R0  return value
        X86Reg.RDI,  // R1  arg 1 / ctx
        X86Reg.RSI,  // R2  arg 2
        X86Reg.RDX,  // R3  arg 3
        X86Reg.RCX,  // R4  arg 4 (clashes with cl for shifts)
        X86Reg.R8,   // R5  arg 5
        X86Reg.RBX,  // R6  callee-saved
        X86Reg.R13,  // R7  callee-saved
        X86Reg.R14,  // R8  callee-saved
        X86Reg.R15,  // R9  callee-saved
        X86Reg.RBP,  // R10 frame pointer (read-only)
    };

    /** Scratch: address of a checked access, shift save, helper target. */
    public static final X86Reg AUX = X86Reg.R10;
    /** Scratch: divisor, access descriptor, error pc. */
    public static final X86Reg AUX2 = X86Reg.R11;
    /** The run's environment block (callee-saved, so helpers keep it). */
    public static final X86Reg ENV = X86Reg.R12;
    /** SysV 6th argument: carries the env block to the Java bridge (the helper id is in the block). */
    public static final X86Reg BRIDGE_ENV = X86Reg.R9;
    /**
     * Budget events left (EnvLayout.BUDGET lives here while BPF code runs): a register, not memory,
     * so a loop's back-edge costs {@code sub r9, 1} instead of a read-modify-write through memory
     * whose store-to-load latency chains every iteration. Entries load it; it is written back to
     * the env block around every helper call (helpers clobber r9 and callbacks spend budget).
     */
    public static final X86Reg BUDGET = X86Reg.R9;

    /** Callee-saved registers the entry function saves, in push order. */
    public static final X86Reg[] ENTRY_SAVED = {X86Reg.RBX, X86Reg.R12, X86Reg.R13, X86Reg.R14, X86Reg.R15};

    public static X86Reg x86(int bpfReg) {
        if (bpfReg < 0 || bpfReg > 10) throw new IllegalArgumentException("no BPF register r" + bpfReg);
        return BPF_TO_X86[bpfReg];
    }

    /** True for R6-R9, which a function must save before it writes them. */
    public static boolean calleeSaved(int bpfReg) { return bpfReg >= 6 && bpfReg <= 9; }
}
