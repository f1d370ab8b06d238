package dev.bpf4j.engine;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.runtime.BpfLoadException;

import static dev.bpf4j.isa.Opcodes.*;

/**
 * The rules every engine applies at load, independent of the verifier: what no engine could run
 * safely or could give a meaning to — register numbers past r10, any write to r10 (the frame
 * pointer every check and unwinder relies on), unrelocated map references in lddw, opcodes, modes,
 * widths and operand forms that do not exist, jumps and function addresses that do not land on an
 * instruction of the program. One pass over the instructions, then one over their targets, both in
 * pc order, so every engine refuses a program with the same error.
 */
public final class EngineGuard {
    private EngineGuard() {}

    /** Throws a {@link BpfLoadException} naming the program, the first bad pc and the reason. */
    public static void check(String program, Insn[] insns, boolean legacyPacketLoads) {
        boolean[] secondSlot = new boolean[insns.length];
        for (int pc = 0; pc < insns.length; pc++) {
            if (secondSlot[pc]) continue;
            Insn in = insns[pc];
            if (in.dst() > 10 || in.src() > 10) throw error(program, pc, "register number past r10");
            switch (Opcodes.cls(in.opcode())) {
                case LD -> {
                    if (ld(program, insns, pc, legacyPacketLoads)) secondSlot[pc + 1] = true;
                }
                case LDX -> ldx(program, pc, in);
                case ST -> {
                    if (mode(in.opcode()) != MEM) throw error(program, pc, String.format("unknown ST mode in opcode 0x%02x", in.opcode()));
                }
                case STX -> stx(program, pc, in);
                case ALU, ALU64 -> alu(program, pc, in);
                default -> jmp(program, pc, in);
            }
        }
        for (int pc = 0; pc < insns.length; pc++) {
            if (secondSlot[pc]) continue;
            Insn in = insns[pc];
            long target = target(pc, in);
            if (target != NO_TARGET) checkInside(program, insns.length, secondSlot, pc, target, "jump target");
        }
        for (int pc = 0; pc < insns.length; pc++) {
            Insn in = insns[pc];
            if (!secondSlot[pc] && in.opcode() == LDDW && in.src() == PSEUDO_FUNC) {
                checkInside(program, insns.length, secondSlot, pc, pc + 1L + in.imm(), "function address (lddw src=4) target");
            }
        }
    }

    /** Returns true for an lddw (whose second slot follows). */
    private static boolean ld(String program, Insn[] insns, int pc, boolean legacyPacketLoads) {
        Insn in = insns[pc];
        int op = in.opcode();
        if (op == LDDW) {
            if (in.src() != PSEUDO_IMM64 && in.src() != PSEUDO_FUNC) {
                throw error(program, pc, "lddw with src " + in.src() + " (map/BTF reference) must be relocated before loading");
            }
            if (pc + 1 >= insns.length || insns[pc + 1].opcode() != 0) throw error(program, pc, "lddw without its second slot");
            writes(program, pc, in.dst());
            return true;
        }
        // LD ABS/IND B/H/W, only when the load options allow them; they write r0
        if ((mode(op) != ABS && mode(op) != IND) || size(op) == DW) throw error(program, pc, String.format("unknown LD opcode 0x%02x", op));
        if (!legacyPacketLoads) {
            throw error(program, pc, String.format("opcode 0x%02x: legacy packet loads (LD ABS/IND) need LoadOptions.withLegacyPacketLoads(true)", op));
        }
        return false;
    }

    private static void ldx(String program, int pc, Insn in) {
        int op = in.opcode();
        writes(program, pc, in.dst());
        if (mode(op) == MEMSX) {
            if (size(op) == DW) throw error(program, pc, "MEMSX load of 8 bytes is not defined");
        } else if (mode(op) != MEM) {
            throw error(program, pc, String.format("unknown LDX mode in opcode 0x%02x", op));
        }
    }

    private static void stx(String program, int pc, Insn in) {
        int op = in.opcode();
        if (mode(op) == ATOMIC) {
            if (size(op) != W && size(op) != DW) throw error(program, pc, "atomic operations are 32 or 64 bits wide");
            if (!isAtomicOp(in.imm())) throw error(program, pc, String.format("unknown atomic operation 0x%x", in.imm()));
            if ((in.imm() & FETCH) != 0 && in.imm() != CMPXCHG) writes(program, pc, in.src());
        } else if (mode(op) != MEM) {
            throw error(program, pc, String.format("unknown STX mode in opcode 0x%02x", op));
        }
    }

    /** add/or/and/xor, each with or without fetch, xchg and cmpxchg. */
    public static boolean isAtomicOp(int imm) {
        switch (imm & ~FETCH) {
            case ADD: case OR: case AND: case XOR: return true;
            default: return imm == XCHG || imm == CMPXCHG;
        }
    }

    private static void alu(String program, int pc, Insn in) {
        int op = in.opcode();
        boolean is64 = cls(op) == ALU64;
        writes(program, pc, in.dst());
        switch (op(op)) {
            case ADD: case SUB: case MUL: case OR: case AND: case LSH: case RSH: case XOR: case ARSH:
                return;
            case DIV: case MOD:
                if (in.off() != 0 && in.off() != 1) throw error(program, pc, "div/mod offset must be 0 (unsigned) or 1 (signed)");
                return;
            case NEG:
                if (source(op) != K) throw error(program, pc, "neg takes no source register");
                return;
            case MOV:
                if (in.off() == 0 || source(op) == K) return;
                if (in.off() != 8 && in.off() != 16 && !(is64 && in.off() == 32)) {
                    throw error(program, pc, is64 ? "movsx offset must be 8, 16 or 32" : "ALU movsx offset must be 8 or 16");
                }
                return;
            case END:
                if (is64 && source(op) != TO_LE) throw error(program, pc, "ALU64 byte swap must use source 0 (bswap)");
                if (in.imm() != 16 && in.imm() != 32 && in.imm() != 64) throw error(program, pc, "byte swap width must be 16, 32 or 64");
                return;
            default:
                throw error(program, pc, String.format("unknown ALU opcode 0x%02x", op));
        }
    }

    private static void jmp(String program, int pc, Insn in) {
        int op = in.opcode();
        boolean is32 = cls(op) == JMP32;
        switch (op(op)) {
            case JA:
                if (source(op) != K) throw error(program, pc, "ja takes no source register");
                return;
            case CALL:
                if (is32) throw error(program, pc, String.format("unknown jump opcode 0x%02x", op));
                if (source(op) == X) { // callx: the helper id is in dst
                    if (in.src() != 0 || in.off() != 0 || in.imm() != 0) throw error(program, pc, "callx takes only its dst register");
                    return;
                }
                if (in.src() != CALL_HELPER && in.src() != PSEUDO_CALL) {
                    throw error(program, pc, "call with src " + in.src() + " (kfunc) is not supported");
                }
                return;
            case EXIT:
                if (is32 || source(op) != K) throw error(program, pc, String.format("unknown jump opcode 0x%02x", op));
                return;
            case JEQ: case JGT: case JGE: case JSET: case JNE: case JSGT: case JSGE:
            case JLT: case JLE: case JSLT: case JSLE:
                return;
            default:
                throw error(program, pc, String.format("unknown jump opcode 0x%02x", op));
        }
    }

    private static final long NO_TARGET = Long.MIN_VALUE;

    /** Where a jump or local call at {@code pc} lands ({@code gotol}: imm; calls: pc + 1 + imm); NO_TARGET for others. */
    private static long target(int pc, Insn in) {
        int op = in.opcode();
        if (!isJmp(op)) return NO_TARGET;
        if (op(op) == CALL) return in.src() == PSEUDO_CALL && source(op) == K ? pc + 1L + in.imm() : NO_TARGET;
        if (op(op) == EXIT) return NO_TARGET;
        if (op == (JMP32 | JA)) return pc + 1L + in.imm();
        return pc + 1L + in.off();
    }

    private static void checkInside(String program, int length, boolean[] secondSlot, int pc, long target, String what) {
        if (target < 0 || target >= length) throw error(program, pc, what + " " + target + " is outside the program");
        if (secondSlot[(int) target]) throw error(program, pc, what + " " + target + " is the second slot of an lddw");
    }

    private static void writes(String program, int pc, int reg) {
        if (reg == 10) throw error(program, pc, "r10 is read-only");
    }

    private static BpfLoadException error(String program, int pc, String reason) {
        return new BpfLoadException("program '" + program + "' pc " + pc + ": " + reason);
    }
}
