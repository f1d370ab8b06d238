package dev.bpf4j.program;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;

/**
 * The registers one instruction reads and writes, as bit masks over r0–r10 (bit n = rn), and where
 * control can go next. Conservative where it matters for a liveness analysis (the JIT's): an instruction that may
 * write a register without always doing so (an atomic's fetch) reads it too.
 */
public final class RegisterUse {
    private RegisterUse() {}

    public static final int R0 = 1, ARGS = 0b111110, CALLER_SAVED = 0b111111;

    public static int bit(int reg) { return 1 << reg; }

    /** Registers read by {@code i}. */
    public static int uses(Insn i) {
        int op = i.opcode();
        int x = Opcodes.source(op) == Opcodes.X ? bit(i.src()) : 0;
        switch (i.cls()) {
            case Opcodes.ALU:
            case Opcodes.ALU64:
                if (Opcodes.op(op) == Opcodes.MOV) return x;
                return bit(i.dst()) | (Opcodes.op(op) == Opcodes.END ? 0 : x);
            case Opcodes.JMP:
            case Opcodes.JMP32:
                switch (Opcodes.op(op)) {
                    case Opcodes.JA: return 0;
                    case Opcodes.EXIT: return R0;
                    case Opcodes.CALL: return ARGS | (Opcodes.source(op) == Opcodes.X ? bit(i.dst()) : 0); // callx: the id in dst
                    default: return bit(i.dst()) | x;
                }
            case Opcodes.LDX:
                return bit(i.src());
            case Opcodes.ST:
                return bit(i.dst());
            case Opcodes.STX:
                return bit(i.dst()) | bit(i.src()) | (Opcodes.mode(op) == Opcodes.ATOMIC ? R0 : 0);
            default: // LD: lddw reads nothing; LD ABS/IND read the context (r6) and src
                return i.isLddw() ? 0 : bit(6) | bit(i.src());
        }
    }

    /** Registers {@code i} always writes. */
    public static int defs(Insn i) {
        int op = i.opcode();
        switch (i.cls()) {
            case Opcodes.ALU:
            case Opcodes.ALU64:
            case Opcodes.LDX:
                return bit(i.dst());
            case Opcodes.JMP:
            case Opcodes.JMP32:
                return Opcodes.op(op) == Opcodes.CALL ? CALLER_SAVED : 0;
            case Opcodes.LD:
                return i.isLddw() ? bit(i.dst()) : R0;
            default:
                return 0; // stores; an atomic's fetch result is treated as read-modify (see uses)
        }
    }

    /** True for an instruction after which the next slot starts a new basic block. */
    public static boolean endsBlock(Insn i) {
        int cls = i.cls();
        if (cls == Opcodes.LD && !i.isLddw()) return true; // LD ABS/IND may leave the function
        if (cls != Opcodes.JMP && cls != Opcodes.JMP32) return false;
        return Opcodes.op(i.opcode()) != Opcodes.CALL;
    }

    /** True when control may continue at the next slot after {@code i}. */
    public static boolean fallsThrough(Insn i) {
        int cls = i.cls();
        if (cls != Opcodes.JMP && cls != Opcodes.JMP32) return true;
        int op = Opcodes.op(i.opcode());
        return op != Opcodes.EXIT && op != Opcodes.JA;
    }

    /** Slots {@code i} occupies (2 for lddw). */
    public static int width(Insn i) { return i.isLddw() ? 2 : 1; }
}
