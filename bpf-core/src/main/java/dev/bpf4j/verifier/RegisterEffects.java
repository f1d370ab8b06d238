package dev.bpf4j.verifier;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;

/**
 * Which registers a checked slot reads, writes and clobbers, as bit masks (bit n = rn). This is
 * the one place that knows the data flow of each instruction; the r10 check, the register range
 * check and the must-be-initialised analysis all use it.
 */
final class RegisterEffects {
    private RegisterEffects() {}

    static final int R0 = 1;
    static final int R10 = 1 << 10;
    /** r0-r10: the registers a program may name. */
    static final int VALID = (1 << 11) - 1;
    /** r1-r5: argument registers, clobbered by every call (kernel caller_saved). */
    static final int CALLER_SAVED = 0b111110;

    static int bit(int reg) { return 1 << reg; }

    static int reads(InsnForm form, Insn insn) {
        boolean mov = Opcodes.op(insn.opcode()) == Opcodes.MOV;
        switch (form) {
            case ALU_IMM: return mov ? 0 : bit(insn.dst());
            case ALU_REG: return bit(insn.src()) | (mov ? 0 : bit(insn.dst()));
            case ALU_UNARY: case JCOND_IMM: case ST: case CALL_REG: return bit(insn.dst());
            case JCOND_REG: case STX: return bit(insn.dst()) | bit(insn.src());
            case EXIT: return R0;
            case LDX: return bit(insn.src());
            case LD_ABS: return bit(6); // r6 holds the context (skb) the load reads from
            case LD_IND: return bit(6) | bit(insn.src());
            case ATOMIC: return bit(insn.dst()) | bit(insn.src()) | (insn.imm() == Opcodes.CMPXCHG ? R0 : 0);
            default: return 0; // jumps, calls (arguments are unchecked without prototypes), lddw
        }
    }

    static int writes(InsnForm form, Insn insn) {
        switch (form) {
            case ALU_IMM: case ALU_REG: case ALU_UNARY: case LDDW: case LDX: return bit(insn.dst());
            case CALL_HELPER: case CALL_REG: case CALL_LOCAL: case LD_ABS: case LD_IND: return R0;
            case ATOMIC:
                if (insn.imm() == Opcodes.CMPXCHG) return R0; // r0 receives the old value
                return (insn.imm() & Opcodes.FETCH) != 0 ? bit(insn.src()) : 0;
            default: return 0;
        }
    }

    /** Registers whose value is lost (NOT_INIT afterwards) unless the slot also writes them. */
    static int clobbers(InsnForm form) {
        switch (form) {
            case CALL_HELPER: case CALL_REG: case CALL_LOCAL: case LD_ABS: case LD_IND: return CALLER_SAVED;
            default: return 0;
        }
    }

    /** The initialised set after the slot, given the set before it. */
    static int transfer(InsnForm form, Insn insn, int before) {
        return (before & ~clobbers(form)) | writes(form, insn);
    }
}
