package dev.bpf4j.verifier;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.runtime.Limits;

/**
 * Third pass: every r10-relative constant-offset access (LDX with src r10; ST, STX, ATOMIC with
 * dst r10) must lie inside the frame {@code [-512, 0)} and be aligned to its size, the kernel's
 * strict stack alignment. The engines rely on this to skip the run-time check for such accesses.
 */
final class StackAccessCheck {
    private StackAccessCheck() {}

    private static final int FP = 10;

    static void check(Reject reject, Insn[] insns, InsnForm[] forms) {
        for (int pc = 0; pc < insns.length; pc++) {
            Insn insn = insns[pc];
            int base = forms[pc] == InsnForm.LDX ? insn.src() : insn.dst();
            boolean access = forms[pc] == InsnForm.LDX || forms[pc] == InsnForm.ST
                    || forms[pc] == InsnForm.STX || forms[pc] == InsnForm.ATOMIC;
            if (access && base == FP) checkAccess(reject, pc, insn.off(), Opcodes.sizeBytes(insn.opcode()));
        }
    }

    private static void checkAccess(Reject reject, int pc, int off, int size) {
        String access = "invalid stack access off=" + off + " size=" + size;
        if (off < -Limits.STACK_SIZE || off + size > 0) {
            throw reject.at(pc, access + ": r10-relative accesses must lie within [-" + Limits.STACK_SIZE + ", 0)");
        }
        if (Math.floorMod(off, size) != 0) {
            throw reject.at(pc, access + ": misaligned, the offset must be a multiple of the access size");
        }
    }
}
