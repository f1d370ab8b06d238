package dev.bpf4j.verifier;

import dev.bpf4j.isa.Insn;

import static dev.bpf4j.isa.Opcodes.*;

/**
 * Opcode and reserved-field rules of the load and store classes (RFC 9669 section 5): LD (lddw
 * and the legacy packet loads), LDX (MEM and MEMSX), ST, STX (MEM and ATOMIC).
 */
final class MemoryRules {
    private MemoryRules() {}

    private static final String[] PSEUDO_NAMES = {"immediate", "map fd", "map value", "BTF id", "function",
            "map index", "map index value"};

    /** LD class except lddw. */
    static InsnForm checkLegacyLoad(Reject reject, int pc, Insn insn, ValidatorFeatures features) {
        int mode = mode(insn.opcode());
        if ((mode != ABS && mode != IND) || size(insn.opcode()) == DW) throw reject.unknownOpcode(pc, insn);
        if (!features.legacyPacketLoads()) {
            throw reject.notSupported(pc, "legacy packet load " + OpcodeNames.of(insn.opcode())
                    + " (LD ABS/IND, socket filters only)");
        }
        reject.requireZero(pc, insn, "dst", insn.dst());
        reject.requireZero(pc, insn, "off", insn.off());
        if (mode == ABS) {
            reject.requireZero(pc, insn, "src", insn.src());
            return InsnForm.LD_ABS;
        }
        return InsnForm.LD_IND;
    }

    /**
     * The two slots of lddw: the second must be opcode 0 with zero registers and offset (the
     * kernel's "invalid bpf_ld_imm64 insn"), and only src 0 is runnable without an object loader.
     */
    static InsnForm checkLddw(Reject reject, int pc, Insn insn, Insn next, ValidatorFeatures features) {
        reject.requireZero(pc, insn, "off", insn.off());
        if (insn.src() > PSEUDO_MAP_IDX_VALUE) {
            throw reject.at(pc, "unknown lddw source src=" + insn.src() + ": must be 0 (64-bit immediate) or a pseudo source 1-6");
        }
        if (next == null) {
            throw reject.at(pc, "lddw needs two slots but the program ends after pc " + pc + ": add the second slot");
        }
        if (next.opcode() != 0 || next.dst() != 0 || next.src() != 0 || next.off() != 0) {
            throw reject.at(pc, "invalid second slot of lddw at pc " + (pc + 1) + ": its opcode, dst, src and off must be 0, found "
                    + String.format("opcode=0x%02x dst=%d src=%d off=%d", next.opcode(), next.dst(), next.src(), next.off()));
        }
        if (insn.src() == PSEUDO_IMM64) return InsnForm.LDDW;
        String name = PSEUDO_NAMES[insn.src()];
        if (!features.allowsPseudo(insn.src())) {
            throw reject.at(pc, "lddw src=" + insn.src() + " (" + name + ") is unresolved: it needs the object loader to "
                    + "resolve it; only src=0 (a plain 64-bit immediate) can run here");
        }
        int src = insn.src();
        if (src == PSEUDO_MAP_FD || src == PSEUDO_MAP_IDX || src == PSEUDO_FUNC) {
            reject.requireZero(pc, insn, "imm of the second slot (" + name + ")", next.imm());
        }
        return InsnForm.LDDW;
    }

    static InsnForm checkLdx(Reject reject, int pc, Insn insn) {
        int mode = mode(insn.opcode());
        boolean valid = mode == MEM || (mode == MEMSX && size(insn.opcode()) != DW);
        if (!valid) throw reject.unknownOpcode(pc, insn);
        reject.requireZero(pc, insn, "imm", insn.imm());
        return InsnForm.LDX;
    }

    static InsnForm checkSt(Reject reject, int pc, Insn insn) {
        if (mode(insn.opcode()) != MEM) throw reject.unknownOpcode(pc, insn);
        reject.requireZero(pc, insn, "src", insn.src());
        return InsnForm.ST;
    }

    static InsnForm checkStx(Reject reject, int pc, Insn insn) {
        int mode = mode(insn.opcode());
        if (mode == MEM) {
            reject.requireZero(pc, insn, "imm", insn.imm());
            return InsnForm.STX;
        }
        if (mode != ATOMIC || (size(insn.opcode()) != W && size(insn.opcode()) != DW)) {
            throw reject.unknownOpcode(pc, insn);
        }
        if (!isAtomicOp(insn.imm())) {
            throw reject.at(pc, String.format("unknown atomic operation imm=0x%x: must be add, or, and, xor "
                    + "(0x00, 0x40, 0x50, 0xa0, each optionally | FETCH 0x01), xchg (0xe1) or cmpxchg (0xf1)", insn.imm()));
        }
        return InsnForm.ATOMIC;
    }

    private static boolean isAtomicOp(int imm) {
        if (imm == XCHG || imm == CMPXCHG) return true;
        int op = imm & ~FETCH;
        return op == ADD || op == OR || op == AND || op == XOR;
    }
}
