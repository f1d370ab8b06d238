package dev.bpf4j.interp;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import dev.bpf4j.program.StackUse;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.runtime.HelperSpec;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.Limits;
import dev.bpf4j.runtime.LookupInlining;
import dev.bpf4j.verifier.InsnAux;

import static dev.bpf4j.isa.Opcodes.*;

/**
 * Turns a program into a {@link DecodedProgram} and rejects, with the pc and the reason, anything
 * the dispatch loop could not execute safely: unknown opcodes, register numbers past r10, writes
 * to r10 (the unchecked stack fast path relies on r10 being the frame pointer), jumps outside the
 * program or into an lddw, unknown helpers. It is the engine's own guard, not the validator.
 */
final class Decoder {
    private final Program program;
    private final LoadOptions options;
    private final Insn[] insns;
    private final int[] code;
    private final long[] imm;
    private final long[] wide;
    private final HelperSpec[] helpers;
    private final boolean[] secondSlot;
    /** Targets of {@code lddw src=4} (function addresses), by pc of the lddw; -1 elsewhere. */
    private final long[] funcTarget;
    /** The verifier's facts, or null for a program loaded without it (engine tests). */
    private final InsnAux aux;

    private Decoder(Program program, LoadOptions options, InsnAux aux) {
        this.program = program;
        this.options = options;
        this.aux = aux;
        this.insns = program.toArray();
        this.code = new int[insns.length + 1];
        this.imm = new long[insns.length + 1];
        this.wide = new long[insns.length + 1];
        this.helpers = new HelperSpec[insns.length + 1];
        this.secondSlot = new boolean[insns.length + 1];
        this.funcTarget = new long[insns.length + 1];
        java.util.Arrays.fill(funcTarget, -1);
    }

    /** An unverified program (engine tests): its checked accesses may reach any live frame. */
    static DecodedProgram decode(Program program, LoadOptions options) { return decode(program, options, null); }

    /** {@code aux}: the verifier's facts (null: an unverified program, whose checked accesses may reach any live frame). */
    static DecodedProgram decode(Program program, LoadOptions options, InsnAux aux) {
        return new Decoder(program, options, aux).run(true);
    }

    /** For tests: an unverified program without superinstructions, every slot dispatched on its own. */
    static DecodedProgram decodeUnfused(Program program, LoadOptions options) {
        return new Decoder(program, options, null).run(false);
    }

    private DecodedProgram run(boolean fuse) {
        if (insns.length == 0) throw error(0, "empty program");
        if (insns.length >= 1 << DecodedProgram.PC_BITS) throw error(0, "program of " + insns.length + " slots is too large");
        for (int pc = 0; pc < insns.length; pc++) {
            if (secondSlot[pc]) continue;
            decode(pc, insns[pc]);
        }
        code[insns.length] = word(InsnCode.TRAP, 0, 0, 0);
        for (int pc = 0; pc < insns.length; pc++) {
            if (!secondSlot[pc]) checkTarget(pc, insns[pc]);
        }
        boolean[] callbackTarget = new boolean[insns.length];
        for (int pc = 0; pc < insns.length; pc++) {
            if (funcTarget[pc] < 0) continue;
            checkInside(pc, funcTarget[pc], "function address (lddw src=4) target");
            callbackTarget[(int) funcTarget[pc]] = true;
        }
        LookupInlining.Target[] inlineMaps = MapHelperInlining.targets(insns, helpers, functionStarts(), aux);
        for (int pc = 0; pc < insns.length; pc++) {
            if (inlineMaps[pc] != null) code[pc] = word(MapHelperInlining.opcode(helpers[pc].id(), inlineMaps[pc]), 0, CALL_HELPER, 0);
        }
        // The words, the trap slot, then one constant per lddw and four per INLINE_ARRAY_LOOKUP, which their imm indexes.
        int constants = 0;
        for (int pc = 0; pc < insns.length; pc++) {
            int op = InsnCode.opcode(code[pc]);
            if (op == LDDW) constants++;
            if (op == InsnCode.INLINE_ARRAY_LOOKUP) constants += 4;
        }
        long[] packed = new long[code.length + constants];
        int constant = code.length;
        for (int pc = 0; pc < code.length; pc++) {
            if (InsnCode.opcode(code[pc]) == LDDW) imm[pc] = constant++;
            if (InsnCode.opcode(code[pc]) == InsnCode.INLINE_ARRAY_LOOKUP) {
                LookupInlining.Elements e = (LookupInlining.Elements) inlineMaps[pc];
                imm[pc] = constant;
                packed[constant++] = e.openWord();
                packed[constant++] = e.valuesBase();
                packed[constant++] = e.maxEntries();
                packed[constant++] = e.stride();
            }
            packed[pc] = ((long) (int) imm[pc] << 32) | (code[pc] & 0xffffffffL);
        }
        if (fuse) Superinstructions.fuse(packed, code.length);
        DecodedProgram d = new DecodedProgram(program.name(), packed, insns.length, helpers, options.helpers(), inlineMaps, options.entryArgs(), callbackTarget,
                Math.max(StackUse.bytesToZero(insns, 0, insns.length, options.helpers()::forwardArguments),
                        StackUse.deepestAccess(insns, 0, insns.length)), aux);
        for (int pc = 0; pc < insns.length; pc++) {
            if (InsnCode.opcode(code[pc]) != LDDW) continue;
            packed[(int) imm[pc]] = funcTarget[pc] >= 0 ? d.handle((int) funcTarget[pc]) : wide[pc];
        }
        return d;
    }

    /** Where functions start: main, every {@code call local} target and every function address (callback). */
    private int[] functionStarts() {
        java.util.stream.IntStream.Builder b = java.util.stream.IntStream.builder().add(0);
        for (int pc = 0; pc < insns.length; pc++) {
            if (secondSlot[pc]) continue;
            if (InsnCode.opcode(code[pc]) == (JMP | CALL) && insns[pc].src() == PSEUDO_CALL) b.add((int) imm[pc]);
            if (funcTarget[pc] >= 0) b.add((int) funcTarget[pc]);
        }
        return b.build().toArray();
    }

    private void decode(int pc, Insn in) {
        int op = in.opcode();
        if (in.dst() > 10 || in.src() > 10) throw error(pc, "register number past r10");
        imm[pc] = in.imm();
        int opcode = op;
        switch (cls(op)) {
            case LD: decodeLd(pc, in); return;
            case LDX: opcode = decodeLdx(pc, in); break;
            case ST: opcode = decodeSt(pc, in); break;
            case STX: opcode = decodeStx(pc, in); break;
            case ALU: case ALU64: opcode = decodeAlu(pc, in); break;
            default: opcode = decodeJmp(pc, in);
        }
        code[pc] = word(opcode, in.dst(), in.src(), in.off());
    }

    private void decodeLd(int pc, Insn in) {
        if (in.opcode() != LDDW) {
            decodeLegacyLoad(pc, in);
            return;
        }
        if (in.src() != PSEUDO_IMM64 && in.src() != PSEUDO_FUNC) {
            throw error(pc, "lddw with src " + in.src() + " (map/BTF reference) must be relocated before loading");
        }
        if (pc + 1 >= insns.length || insns[pc + 1].opcode() != 0) throw error(pc, "lddw without its second slot");
        writesReg(pc, in.dst());
        if (in.src() == PSEUDO_FUNC) funcTarget[pc] = pc + 1L + in.imm(); // resolved to a handle once decoded
        else wide[pc] = in.imm64(insns[pc + 1]);
        code[pc] = word(LDDW, in.dst(), 0, 0);
        code[pc + 1] = word(InsnCode.TRAP, 0, 0, 0);
        secondSlot[pc + 1] = true;
    }

    /** LD ABS/IND B/H/W: only when the load options allow them; they write r0. */
    private void decodeLegacyLoad(int pc, Insn in) {
        int op = in.opcode();
        if ((mode(op) != ABS && mode(op) != IND) || size(op) == DW) throw error(pc, String.format("unknown LD opcode 0x%02x", op));
        if (!options.legacyPacketLoads()) {
            throw error(pc, String.format("opcode 0x%02x: legacy packet loads (LD ABS/IND) need LoadOptions.withLegacyPacketLoads(true)", op));
        }
        code[pc] = word(op, 0, in.src(), 0);
    }

    private int decodeLdx(int pc, Insn in) {
        int op = in.opcode();
        writesReg(pc, in.dst());
        if (mode(op) == MEMSX) {
            if (size(op) == DW) throw error(pc, "MEMSX load of 8 bytes is not defined");
            return op;
        }
        if (mode(op) != MEM) throw error(pc, String.format("unknown LDX mode in opcode 0x%02x", op));
        return stackFast(pc, in.src(), in.off(), sizeBytes(op)) ? LDX | size(op) : op;
    }

    private int decodeSt(int pc, Insn in) {
        int op = in.opcode();
        if (mode(op) != MEM) throw error(pc, String.format("unknown ST mode in opcode 0x%02x", op));
        return stackFast(pc, in.dst(), in.off(), sizeBytes(op)) ? ST | size(op) : op;
    }

    private int decodeStx(int pc, Insn in) {
        int op = in.opcode();
        if (mode(op) == ATOMIC) {
            if (size(op) != W && size(op) != DW) throw error(pc, "atomic operations are 32 or 64 bits wide");
            if (!AtomicOps.isValid(in.imm())) throw error(pc, String.format("unknown atomic operation 0x%x", in.imm()));
            if ((in.imm() & FETCH) != 0 && in.imm() != CMPXCHG) writesReg(pc, in.src());
            return op;
        }
        if (mode(op) != MEM) throw error(pc, String.format("unknown STX mode in opcode 0x%02x", op));
        return stackFast(pc, in.dst(), in.off(), sizeBytes(op)) ? STX | size(op) : op;
    }

    /**
     * No run-time check for r10 + off with the whole access inside the current frame, nor for an
     * access the verifier proved inside its frame on every path (a stack pointer in any register):
     * the checked path must not let such an access set its window on a frame, where an access of
     * another kind could then slip through (InsnAux).
     */
    private boolean stackFast(int pc, int base, int off, int size) {
        return (base == 10 && off >= -Limits.STACK_SIZE && off + size <= 0) || (aux != null && aux.stackOnly(pc));
    }

    private int decodeAlu(int pc, Insn in) {
        int op = in.opcode();
        boolean is64 = cls(op) == ALU64;
        writesReg(pc, in.dst());
        switch (op(op)) {
            case ADD: case SUB: case MUL: case OR: case AND: case LSH: case RSH: case XOR: case ARSH:
                return op;
            case DIV: case MOD:
                if (in.off() != 0 && in.off() != 1) throw error(pc, "div/mod offset must be 0 (unsigned) or 1 (signed)");
                return op;
            case NEG:
                if (source(op) != K) throw error(pc, "neg takes no source register");
                return op;
            case MOV:
                if (in.off() == 0 || source(op) == K) return op;
                if (in.off() != 8 && in.off() != 16 && !(is64 && in.off() == 32)) {
                    throw error(pc, is64 ? "movsx offset must be 8, 16 or 32" : "ALU movsx offset must be 8 or 16");
                }
                return is64 ? InsnCode.MOVSX64 : InsnCode.MOVSX32;
            case END:
                if (is64 && source(op) != TO_LE) throw error(pc, "ALU64 byte swap must use source 0 (bswap)");
                if (in.imm() != 16 && in.imm() != 32 && in.imm() != 64) throw error(pc, "byte swap width must be 16, 32 or 64");
                return op;
            default:
                throw error(pc, String.format("unknown ALU opcode 0x%02x", op));
        }
    }

    private int decodeJmp(int pc, Insn in) {
        int op = in.opcode();
        boolean is32 = cls(op) == JMP32;
        switch (op(op)) {
            case JA:
                if (source(op) != K) throw error(pc, "ja takes no source register");
                if (is32) imm[pc] = pc + 1L + in.imm(); // gotol: 32-bit offset in imm
                return op;
            case CALL:
                if (is32) throw error(pc, String.format("unknown jump opcode 0x%02x", op));
                if (source(op) == X) { // callx: the helper is looked up by the id in dst when it runs
                    if (in.src() != 0 || in.off() != 0 || in.imm() != 0) throw error(pc, "callx takes only its dst register");
                    return op;
                }
                decodeCall(pc, in);
                return op;
            case EXIT:
                if (is32 || source(op) != K) throw error(pc, String.format("unknown jump opcode 0x%02x", op));
                return op;
            case JEQ: case JGT: case JGE: case JSET: case JNE: case JSGT: case JSGE:
            case JLT: case JLE: case JSLT: case JSLE:
                return op;
            default:
                throw error(pc, String.format("unknown jump opcode 0x%02x", op));
        }
    }

    private void decodeCall(int pc, Insn in) {
        if (in.src() == CALL_HELPER) {
            helpers[pc] = options.helpers().lookup(in.imm()).orElseThrow(() ->
                    error(pc, "call to unknown helper id " + in.imm() + " (not in LoadOptions.helpers())"));
        } else if (in.src() == PSEUDO_CALL) {
            imm[pc] = pc + 1L + in.imm();
        } else {
            throw error(pc, "call with src " + in.src() + " (kfunc) is not supported");
        }
    }

    /** Every jump and local call must land on the first slot of an instruction inside the program. */
    private void checkTarget(int pc, Insn in) {
        int op = in.opcode();
        if (!isJmp(op)) return;
        long target;
        if (op(op) == CALL) {
            if (in.src() != PSEUDO_CALL) return;
            target = imm[pc];
        } else if (op(op) == EXIT) {
            return;
        } else if (op == (JMP32 | JA)) {
            target = imm[pc];
        } else {
            target = pc + 1L + in.off();
        }
        checkInside(pc, target, "jump target");
    }

    private void checkInside(int pc, long target, String what) {
        if (target < 0 || target >= insns.length) throw error(pc, what + " " + target + " is outside the program");
        if (secondSlot[(int) target]) throw error(pc, what + " " + target + " is the second slot of an lddw");
    }

    /** The low 32 bits of a packed word (the imm half is added at the end). */
    private static int word(int opcode, int dst, int src, int off) {
        return (int) InsnCode.pack(opcode, dst, src, off, 0);
    }

    private void writesReg(int pc, int reg) {
        if (reg == 10) throw error(pc, "r10 is read-only");
    }

    private BpfLoadException error(int pc, String reason) {
        return new BpfLoadException("program '" + program.name() + "' pc " + pc + ": " + reason);
    }
}
