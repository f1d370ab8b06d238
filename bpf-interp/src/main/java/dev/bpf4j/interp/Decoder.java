package dev.bpf4j.interp;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.StackUse;
import dev.bpf4j.engine.EngineGuard;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.runtime.HelperSpec;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.Limits;
import dev.bpf4j.runtime.LookupInlining;
import dev.bpf4j.helpers.MapHelperInlining;
import dev.bpf4j.verifier.InsnAux;
import dev.bpf4j.runtime.HelperIds;

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
        EngineGuard.check(program.name(), insns, options.legacyPacketLoads()); // what follows decodes a well-formed program
        for (int pc = 0; pc < insns.length; pc++) {
            if (secondSlot[pc]) continue;
            decode(pc, insns[pc]);
        }
        code[insns.length] = word(InsnCode.TRAP, 0, 0, 0);
        boolean[] callbackTarget = new boolean[insns.length];
        for (int pc = 0; pc < insns.length; pc++) {
            if (funcTarget[pc] >= 0) callbackTarget[(int) funcTarget[pc]] = true;
        }
        LookupInlining.Target[] inlineMaps = MapHelperInlining.targets(insns, helpers, functionStarts(), aux);
        for (int pc = 0; pc < insns.length; pc++) {
            if (inlineMaps[pc] != null) code[pc] = word(inlineOpcode(helpers[pc].id(), inlineMaps[pc]), 0, CALL_HELPER, 0);
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
                StackUse.bytesToZeroPerFrame(insns, options.helpers()::forwardArguments), aux);
        for (int pc = 0; pc < insns.length; pc++) {
            if (InsnCode.opcode(code[pc]) != LDDW) continue;
            packed[(int) imm[pc]] = funcTarget[pc] >= 0 ? d.handle((int) funcTarget[pc]) : wide[pc];
        }
        return d;
    }

    /**
     * The opcode of an inline-able helper call ({@link MapHelperInlining}) with target {@code t}: an update,
     * a plain array's lookup (which {@link HotLoop} runs itself), or any other lookup.
     */
    private static int inlineOpcode(int helperId, LookupInlining.Target t) {
        if (helperId == HelperIds.MAP_UPDATE_ELEM) return InsnCode.INLINE_UPDATE;
        return t instanceof LookupInlining.Elements e && e.cpus() == 1 ? InsnCode.INLINE_ARRAY_LOOKUP : InsnCode.INLINE_LOOKUP;
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
        if (in.opcode() != LDDW) { // LD ABS/IND B/H/W: they write r0
            code[pc] = word(in.opcode(), 0, in.src(), 0);
            return;
        }
        if (in.src() == PSEUDO_FUNC) funcTarget[pc] = pc + 1L + in.imm(); // resolved to a handle once decoded
        else wide[pc] = in.imm64(insns[pc + 1]);
        code[pc] = word(LDDW, in.dst(), 0, 0);
        code[pc + 1] = word(InsnCode.TRAP, 0, 0, 0);
        secondSlot[pc + 1] = true;
    }

    private int decodeLdx(int pc, Insn in) {
        int op = in.opcode();
        if (mode(op) == MEMSX) return op;
        return stackFast(pc, in.src(), in.off(), sizeBytes(op)) ? LDX | size(op) : op;
    }

    private int decodeSt(int pc, Insn in) {
        int op = in.opcode();
        return stackFast(pc, in.dst(), in.off(), sizeBytes(op)) ? ST | size(op) : op;
    }

    private int decodeStx(int pc, Insn in) {
        int op = in.opcode();
        if (mode(op) == ATOMIC) return op;
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

    /** ALU: only movsx has an opcode of its own in the decoded form. */
    private int decodeAlu(int pc, Insn in) {
        int op = in.opcode();
        if (op(op) != MOV || in.off() == 0 || source(op) == K) return op;
        return cls(op) == ALU64 ? InsnCode.MOVSX64 : InsnCode.MOVSX32;
    }

    private int decodeJmp(int pc, Insn in) {
        int op = in.opcode();
        if (op == (JMP32 | JA)) imm[pc] = pc + 1L + in.imm(); // gotol: 32-bit offset in imm
        if (op(op) == CALL && source(op) == K) decodeCall(pc, in); // callx looks its helper up by the id in dst when it runs
        return op;
    }

    private void decodeCall(int pc, Insn in) {
        if (in.src() == CALL_HELPER) {
            helpers[pc] = options.helpers().lookup(in.imm()).orElseThrow(() ->
                    error(pc, "call to unknown helper id " + in.imm() + " (not in LoadOptions.helpers())"));
        } else { // PSEUDO_CALL (EngineGuard refused the others)
            imm[pc] = pc + 1L + in.imm();
        }
    }

    /** The low 32 bits of a packed word (the imm half is added at the end). */
    private static int word(int opcode, int dst, int src, int off) {
        return (int) InsnCode.pack(opcode, dst, src, off, 0);
    }

    private BpfLoadException error(int pc, String reason) {
        return new BpfLoadException("program '" + program.name() + "' pc " + pc + ": " + reason);
    }
}
