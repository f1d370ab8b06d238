package dev.bpf4j.verifier;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.runtime.HelperRegistry;

import static dev.bpf4j.isa.Opcodes.*;

/**
 * Opcode and reserved-field rules of the JMP and JMP32 classes (RFC 9669 section 4.3), as the
 * kernel's {@code do_check} enforces them for ja, call and exit and {@code check_cond_jmp_op}
 * for conditional jumps. Targets are checked later by {@link ControlFlow}.
 */
final class JumpRules {
    private JumpRules() {}

    static InsnForm check(Reject reject, int pc, Insn insn, HelperRegistry helpers) {
        boolean jmp32 = cls(insn.opcode()) == JMP32;
        boolean x = source(insn.opcode()) == X;
        switch (op(insn.opcode())) {
            case 0xe0:
                // BPF_JCOND: the kernel's may_goto extension, not in RFC 9669
                if (!jmp32 && !x) throw reject.notSupported(pc, "may_goto (JMP JCOND, opcode 0xe5, a kernel extension)");
                throw reject.unknownOpcode(pc, insn);
            case 0xf0:
                throw reject.unknownOpcode(pc, insn);
            case JA:
                if (x) throw reject.unknownOpcode(pc, insn);
                reject.requireZero(pc, insn, "dst", insn.dst());
                reject.requireZero(pc, insn, "src", insn.src());
                if (jmp32) { // gotol: the 32-bit imm is the offset
                    reject.requireZero(pc, insn, "off", insn.off());
                    return InsnForm.JA_LONG;
                }
                reject.requireZero(pc, insn, "imm", insn.imm());
                return InsnForm.JA;
            case CALL:
                if (jmp32) throw reject.unknownOpcode(pc, insn);
                if (x) return checkCallx(reject, pc, insn);
                return checkCall(reject, pc, insn, helpers);
            case EXIT:
                if (jmp32 || x) throw reject.unknownOpcode(pc, insn);
                reject.requireZero(pc, insn, "dst", insn.dst());
                reject.requireZero(pc, insn, "src", insn.src());
                reject.requireZero(pc, insn, "off", insn.off());
                reject.requireZero(pc, insn, "imm", insn.imm());
                return InsnForm.EXIT;
            default: // conditional jumps; off is the target
                if (x) {
                    reject.requireZero(pc, insn, "imm", insn.imm());
                    return InsnForm.JCOND_REG;
                }
                reject.requireZero(pc, insn, "src", insn.src());
                return InsnForm.JCOND_IMM;
        }
    }

    /** callx (uBPF and the conformance suites): the helper id is in dst, known at run time only; src, off, imm are 0. */
    private static InsnForm checkCallx(Reject reject, int pc, Insn insn) {
        reject.requireZero(pc, insn, "src", insn.src());
        reject.requireZero(pc, insn, "off", insn.off());
        reject.requireZero(pc, insn, "imm", insn.imm());
        return InsnForm.CALL_REG;
    }

    private static InsnForm checkCall(Reject reject, int pc, Insn insn, HelperRegistry helpers) {
        if (insn.src() == PSEUDO_KFUNC_CALL) throw reject.notSupported(pc, "kfunc call (call with src=2)");
        if (insn.src() != CALL_HELPER && insn.src() != PSEUDO_CALL) {
            throw reject.at(pc, "unknown call kind src=" + insn.src() + ": must be 0 (helper) or 1 (bpf-to-bpf call)");
        }
        reject.requireZero(pc, insn, "dst", insn.dst());
        reject.requireZero(pc, insn, "off", insn.off());
        if (insn.src() == PSEUDO_CALL) return InsnForm.CALL_LOCAL;
        if (!helpers.contains(insn.imm())) {
            throw reject.at(pc, "unknown helper id " + insn.imm() + ": register it in LoadOptions.helpers()");
        }
        return InsnForm.CALL_HELPER;
    }
}
