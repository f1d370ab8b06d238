package dev.bpf4j.jit.compiler;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.runtime.BpfLoadException;

import static dev.bpf4j.isa.Opcodes.*;

/**
 * The engine's own guard, independent of the validator: rejects what native code could not run
 * safely — register numbers past r10, any write to r10 (it is rbp, the frame every check and
 * unwinder relies on), unrelocated map references in lddw, operand forms that do not exist. The
 * same rules as the interpreter's decoder, so both engines refuse the same programs.
 */
final class EngineGuard {
    private EngineGuard() {}

    static void check(String program, Insn[] insns, boolean legacyPacketLoads) {
        for (int pc = 0; pc < insns.length; pc++) {
            Insn in = insns[pc];
            int op = in.opcode();
            if (in.dst() > 10 || in.src() > 10) throw error(program, pc, "register number past r10");
            switch (Opcodes.cls(op)) {
                case LD:
                    if (op == LDDW) {
                        if (in.src() != PSEUDO_IMM64 && in.src() != PSEUDO_FUNC) throw error(program, pc, "lddw with src " + in.src() + " (map/BTF reference) must be relocated before loading");
                        if (pc + 1 >= insns.length || insns[pc + 1].opcode() != 0) throw error(program, pc, "lddw without its second slot");
                        writes(program, pc, in.dst());
                        pc++;
                    } else {
                        legacyLoad(program, pc, op, legacyPacketLoads);
                    }
                    break;
                case LDX:
                    writes(program, pc, in.dst());
                    break;
                case STX:
                    if (Opcodes.mode(op) == ATOMIC && (in.imm() & FETCH) != 0 && in.imm() != CMPXCHG) writes(program, pc, in.src());
                    break;
                case ALU:
                case ALU64:
                    writes(program, pc, in.dst());
                    if (Opcodes.op(op) == NEG && Opcodes.source(op) != K) throw error(program, pc, "neg takes no source register");
                    break;
                case JMP:
                case JMP32: {
                    int jop = Opcodes.op(op);
                    if (jop == JA && Opcodes.source(op) != K) throw error(program, pc, "ja takes no source register");
                    // CALL|X is callx (the helper id in dst); EXIT|X and any JMP32 call or exit are unknown
                    if ((jop == CALL && Opcodes.cls(op) == JMP32) || (jop == EXIT && (Opcodes.cls(op) == JMP32 || Opcodes.source(op) != K))) {
                        throw error(program, pc, String.format("unknown jump opcode 0x%02x", op));
                    }
                    break;
                }
                default:
                    break;
            }
        }
    }

    /** LD ABS/IND B/H/W, only when the load options allow them (the interpreter's decoder rule). */
    private static void legacyLoad(String program, int pc, int op, boolean allowed) {
        if ((Opcodes.mode(op) != ABS && Opcodes.mode(op) != IND) || Opcodes.size(op) == DW) {
            throw error(program, pc, String.format("unknown LD opcode 0x%02x", op));
        }
        if (!allowed) {
            throw error(program, pc, String.format("opcode 0x%02x: legacy packet loads (LD ABS/IND) need LoadOptions.withLegacyPacketLoads(true)", op));
        }
    }

    private static void writes(String program, int pc, int reg) {
        if (reg == 10) throw error(program, pc, "r10 is read-only");
    }

    private static BpfLoadException error(String program, int pc, String reason) {
        return new BpfLoadException("program '" + program + "' pc " + pc + ": " + reason);
    }
}
