package dev.bpf4j.verifier;

import dev.bpf4j.isa.Insn;

import static dev.bpf4j.isa.Opcodes.*;

/**
 * Opcode and reserved-field rules of the ALU and ALU64 classes (RFC 9669 section 4), as the
 * kernel's {@code check_alu_op} enforces them: K forms have src 0, X forms imm 0, and the offset
 * is 0 except for sdiv/smod (1) and movsx (8/16, and 32 on ALU64).
 */
final class AluRules {
    private AluRules() {}

    static InsnForm check(Reject reject, int pc, Insn insn) {
        int op = op(insn.opcode());
        boolean alu64 = cls(insn.opcode()) == ALU64;
        boolean x = source(insn.opcode()) == X;
        switch (op) {
            case 0xe0: case 0xf0:
                throw reject.unknownOpcode(pc, insn);
            case NEG:
                if (x) throw reject.unknownOpcode(pc, insn);
                reject.requireZero(pc, insn, "src", insn.src());
                reject.requireZero(pc, insn, "off", insn.off());
                reject.requireZero(pc, insn, "imm", insn.imm());
                return InsnForm.ALU_UNARY;
            case END:
                if (alu64 && x) throw reject.unknownOpcode(pc, insn); // ALU64 has bswap (TO_LE encoding) only
                reject.requireZero(pc, insn, "src", insn.src());
                reject.requireZero(pc, insn, "off", insn.off());
                if (insn.imm() != 16 && insn.imm() != 32 && insn.imm() != 64) {
                    throw reject.at(pc, "byte swap width imm=" + insn.imm() + " of " + OpcodeNames.of(insn.opcode())
                            + " must be 16, 32 or 64");
                }
                return InsnForm.ALU_UNARY;
            default:
                checkOffset(reject, pc, insn, op, alu64, x);
                if (x) {
                    reject.requireZero(pc, insn, "imm", insn.imm());
                    return InsnForm.ALU_REG;
                }
                reject.requireZero(pc, insn, "src", insn.src());
                return InsnForm.ALU_IMM;
        }
    }

    private static void checkOffset(Reject reject, int pc, Insn insn, int op, boolean alu64, boolean x) {
        int off = insn.off();
        if (off == 0) return;
        if ((op == DIV || op == MOD) && off == 1) return; // sdiv / smod
        if (op == MOV && x && (off == 8 || off == 16 || (alu64 && off == 32))) return; // movsx
        String allowed;
        if (op == DIV || op == MOD) allowed = "0 (unsigned) or 1 (signed)";
        else if (op == MOV && x) allowed = alu64 ? "0 (mov) or 8, 16, 32 (movsx)" : "0 (mov) or 8, 16 (movsx)";
        else allowed = "0";
        throw reject.at(pc, "offset off=" + off + " of " + OpcodeNames.of(insn.opcode()) + " must be " + allowed);
    }
}
