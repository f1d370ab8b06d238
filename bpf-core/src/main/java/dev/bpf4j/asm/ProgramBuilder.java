package dev.bpf4j.asm;

import dev.bpf4j.isa.Reg;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.isa.Insn;
import static dev.bpf4j.isa.Opcodes.*;

import dev.bpf4j.program.Program;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A small Java DSL for instruction lists with symbolic labels:
 * <pre>{@code
 * Program p = new ProgramBuilder()
 *     .mov64(R0, 1).jeq(R1, 0, "out").add64(R0, R1)
 *     .label("out").exit()
 *     .build("name");
 * }</pre>
 * Jumps and {@code callLocal} name a label defined before or after them; {@link #build} resolves each to
 * a slot offset relative to the next slot (lddw counts two slots). Undefined or duplicate labels and
 * jumps whose distance does not fit the 16-bit offset fail with {@link IllegalStateException} /
 * {@link IllegalArgumentException} naming the label. The 32-bit forms ({@code add32}, {@code jeq32} ...)
 * operate on w registers (ALU / JMP32 class).
 */
public final class ProgramBuilder {
    private final List<Insn> insns = new ArrayList<>();
    private final Map<String, Integer> labels = new HashMap<>();
    private final List<Fixup> fixups = new ArrayList<>();

    private record Fixup(int pc, String label, boolean inImm) {}

    /** Defines {@code name} at the next slot. */
    public ProgramBuilder label(String name) {
        if (labels.putIfAbsent(name, insns.size()) != null) {
            throw new IllegalArgumentException("duplicate label '" + name + "' (first at pc " + labels.get(name) + ", again at pc " + insns.size() + ")");
        }
        return this;
    }

    /** Appends a raw slot as is. */
    public ProgramBuilder insn(Insn insn) { insns.add(insn); return this; }

    private ProgramBuilder emit(int opcode, Reg dst, Reg src, int off, int imm) {
        return insn(new Insn(opcode, dst == null ? 0 : dst.num(), src == null ? 0 : src.num(), off, imm));
    }

    private ProgramBuilder jumpTo(int opcode, Reg dst, Reg src, int imm, String label, boolean inImm) {
        fixups.add(new Fixup(insns.size(), label, inImm));
        return emit(opcode, dst, src, 0, imm);
    }

    // ---- ALU: op is one of Opcodes.ADD ... ARSH.
    public ProgramBuilder alu64(int op, Reg dst, int imm) { return emit(ALU64 | op | K, dst, null, 0, imm); }
    public ProgramBuilder alu64(int op, Reg dst, Reg src) { return emit(ALU64 | op | X, dst, src, 0, 0); }
    public ProgramBuilder alu32(int op, Reg dst, int imm) { return emit(ALU | op | K, dst, null, 0, imm); }
    public ProgramBuilder alu32(int op, Reg dst, Reg src) { return emit(ALU | op | X, dst, src, 0, 0); }

    public ProgramBuilder mov64(Reg dst, int imm) { return alu64(MOV, dst, imm); }
    public ProgramBuilder mov64(Reg dst, Reg src) { return alu64(MOV, dst, src); }
    public ProgramBuilder mov32(Reg dst, int imm) { return alu32(MOV, dst, imm); }
    public ProgramBuilder mov32(Reg dst, Reg src) { return alu32(MOV, dst, src); }
    public ProgramBuilder add64(Reg dst, int imm) { return alu64(ADD, dst, imm); }
    public ProgramBuilder add64(Reg dst, Reg src) { return alu64(ADD, dst, src); }
    public ProgramBuilder add32(Reg dst, int imm) { return alu32(ADD, dst, imm); }
    public ProgramBuilder add32(Reg dst, Reg src) { return alu32(ADD, dst, src); }
    public ProgramBuilder sub64(Reg dst, int imm) { return alu64(SUB, dst, imm); }
    public ProgramBuilder sub64(Reg dst, Reg src) { return alu64(SUB, dst, src); }
    public ProgramBuilder sub32(Reg dst, int imm) { return alu32(SUB, dst, imm); }
    public ProgramBuilder sub32(Reg dst, Reg src) { return alu32(SUB, dst, src); }
    public ProgramBuilder mul64(Reg dst, int imm) { return alu64(MUL, dst, imm); }
    public ProgramBuilder mul64(Reg dst, Reg src) { return alu64(MUL, dst, src); }
    public ProgramBuilder mul32(Reg dst, int imm) { return alu32(MUL, dst, imm); }
    public ProgramBuilder mul32(Reg dst, Reg src) { return alu32(MUL, dst, src); }
    public ProgramBuilder div64(Reg dst, int imm) { return alu64(DIV, dst, imm); }
    public ProgramBuilder div64(Reg dst, Reg src) { return alu64(DIV, dst, src); }
    public ProgramBuilder div32(Reg dst, int imm) { return alu32(DIV, dst, imm); }
    public ProgramBuilder div32(Reg dst, Reg src) { return alu32(DIV, dst, src); }
    public ProgramBuilder mod64(Reg dst, int imm) { return alu64(MOD, dst, imm); }
    public ProgramBuilder mod64(Reg dst, Reg src) { return alu64(MOD, dst, src); }
    public ProgramBuilder mod32(Reg dst, int imm) { return alu32(MOD, dst, imm); }
    public ProgramBuilder mod32(Reg dst, Reg src) { return alu32(MOD, dst, src); }
    public ProgramBuilder or64(Reg dst, int imm) { return alu64(OR, dst, imm); }
    public ProgramBuilder or64(Reg dst, Reg src) { return alu64(OR, dst, src); }
    public ProgramBuilder or32(Reg dst, int imm) { return alu32(OR, dst, imm); }
    public ProgramBuilder or32(Reg dst, Reg src) { return alu32(OR, dst, src); }
    public ProgramBuilder and64(Reg dst, int imm) { return alu64(AND, dst, imm); }
    public ProgramBuilder and64(Reg dst, Reg src) { return alu64(AND, dst, src); }
    public ProgramBuilder and32(Reg dst, int imm) { return alu32(AND, dst, imm); }
    public ProgramBuilder and32(Reg dst, Reg src) { return alu32(AND, dst, src); }
    public ProgramBuilder xor64(Reg dst, int imm) { return alu64(XOR, dst, imm); }
    public ProgramBuilder xor64(Reg dst, Reg src) { return alu64(XOR, dst, src); }
    public ProgramBuilder xor32(Reg dst, int imm) { return alu32(XOR, dst, imm); }
    public ProgramBuilder xor32(Reg dst, Reg src) { return alu32(XOR, dst, src); }
    public ProgramBuilder lsh64(Reg dst, int imm) { return alu64(LSH, dst, imm); }
    public ProgramBuilder lsh64(Reg dst, Reg src) { return alu64(LSH, dst, src); }
    public ProgramBuilder lsh32(Reg dst, int imm) { return alu32(LSH, dst, imm); }
    public ProgramBuilder lsh32(Reg dst, Reg src) { return alu32(LSH, dst, src); }
    public ProgramBuilder rsh64(Reg dst, int imm) { return alu64(RSH, dst, imm); }
    public ProgramBuilder rsh64(Reg dst, Reg src) { return alu64(RSH, dst, src); }
    public ProgramBuilder rsh32(Reg dst, int imm) { return alu32(RSH, dst, imm); }
    public ProgramBuilder rsh32(Reg dst, Reg src) { return alu32(RSH, dst, src); }
    public ProgramBuilder arsh64(Reg dst, int imm) { return alu64(ARSH, dst, imm); }
    public ProgramBuilder arsh64(Reg dst, Reg src) { return alu64(ARSH, dst, src); }
    public ProgramBuilder arsh32(Reg dst, int imm) { return alu32(ARSH, dst, imm); }
    public ProgramBuilder arsh32(Reg dst, Reg src) { return alu32(ARSH, dst, src); }
    public ProgramBuilder neg64(Reg dst) { return emit(ALU64 | NEG | K, dst, null, 0, 0); }
    public ProgramBuilder neg32(Reg dst) { return emit(ALU | NEG | K, dst, null, 0, 0); }

    // ---- cpu v4 ALU: signed division (off = 1) and sign-extending moves (off = source bits).
    public ProgramBuilder sdiv64(Reg dst, int imm) { return emit(ALU64 | DIV | K, dst, null, 1, imm); }
    public ProgramBuilder sdiv64(Reg dst, Reg src) { return emit(ALU64 | DIV | X, dst, src, 1, 0); }
    public ProgramBuilder sdiv32(Reg dst, int imm) { return emit(ALU | DIV | K, dst, null, 1, imm); }
    public ProgramBuilder sdiv32(Reg dst, Reg src) { return emit(ALU | DIV | X, dst, src, 1, 0); }
    public ProgramBuilder smod64(Reg dst, int imm) { return emit(ALU64 | MOD | K, dst, null, 1, imm); }
    public ProgramBuilder smod64(Reg dst, Reg src) { return emit(ALU64 | MOD | X, dst, src, 1, 0); }
    public ProgramBuilder smod32(Reg dst, int imm) { return emit(ALU | MOD | K, dst, null, 1, imm); }
    public ProgramBuilder smod32(Reg dst, Reg src) { return emit(ALU | MOD | X, dst, src, 1, 0); }

    /** {@code dst = (s<bits>) src} on 64 bits; bits is 8, 16 or 32. */
    public ProgramBuilder movsx64(Reg dst, Reg src, int bits) {
        if (bits != 8 && bits != 16 && bits != 32) throw new IllegalArgumentException("movsx64 width must be 8, 16 or 32, got " + bits);
        return emit(ALU64 | MOV | X, dst, src, bits, 0);
    }

    /** {@code wdst = (s<bits>) wsrc}; bits is 8 or 16. */
    public ProgramBuilder movsx32(Reg dst, Reg src, int bits) {
        if (bits != 8 && bits != 16) throw new IllegalArgumentException("movsx32 width must be 8 or 16, got " + bits);
        return emit(ALU | MOV | X, dst, src, bits, 0);
    }

    public ProgramBuilder le(Reg dst, int bits) { return emit(ALU | END | TO_LE, dst, null, 0, width(bits)); }
    public ProgramBuilder be(Reg dst, int bits) { return emit(ALU | END | TO_BE, dst, null, 0, width(bits)); }
    public ProgramBuilder bswap(Reg dst, int bits) { return emit(ALU64 | END | TO_LE, dst, null, 0, width(bits)); }

    private static int width(int bits) {
        if (bits != 16 && bits != 32 && bits != 64) throw new IllegalArgumentException("byte swap width must be 16, 32 or 64, got " + bits);
        return bits;
    }

    // ---- Loads and stores; size is Opcodes.B, H, W or DW.
    /** {@code dst = imm64}: two slots. */
    public ProgramBuilder lddw(Reg dst, long imm64) {
        emit(LDDW, dst, null, 0, (int) imm64);
        return insn(new Insn(0, 0, 0, 0, (int) (imm64 >>> 32)));
    }

    /** lddw with a pseudo source (Opcodes.PSEUDO_MAP_FD ...): imm in the first slot, nextImm in the second. */
    public ProgramBuilder ldPseudo(Reg dst, int src, int imm, int nextImm) {
        if (src < PSEUDO_MAP_FD || src > PSEUDO_MAP_IDX_VALUE) throw new IllegalArgumentException("lddw pseudo source must be 1..6, got " + src);
        insn(new Insn(LDDW, dst.num(), src, 0, imm));
        return insn(new Insn(0, 0, 0, 0, nextImm));
    }

    public ProgramBuilder ldx(int size, Reg dst, Reg src, int off) { return emit(LDX | MEM | size, dst, src, off16(off), 0); }
    public ProgramBuilder ldxsx(int size, Reg dst, Reg src, int off) { return emit(LDX | MEMSX | size, dst, src, off16(off), 0); }
    public ProgramBuilder st(int size, Reg dst, int off, int imm) { return emit(ST | MEM | size, dst, null, off16(off), imm); }
    public ProgramBuilder stx(int size, Reg dst, int off, Reg src) { return emit(STX | MEM | size, dst, src, off16(off), 0); }
    public ProgramBuilder ldxb(Reg dst, Reg src, int off) { return ldx(B, dst, src, off); }
    public ProgramBuilder ldxh(Reg dst, Reg src, int off) { return ldx(H, dst, src, off); }
    public ProgramBuilder ldxw(Reg dst, Reg src, int off) { return ldx(W, dst, src, off); }
    public ProgramBuilder ldxdw(Reg dst, Reg src, int off) { return ldx(DW, dst, src, off); }
    public ProgramBuilder stxb(Reg dst, int off, Reg src) { return stx(B, dst, off, src); }
    public ProgramBuilder stxh(Reg dst, int off, Reg src) { return stx(H, dst, off, src); }
    public ProgramBuilder stxw(Reg dst, int off, Reg src) { return stx(W, dst, off, src); }
    public ProgramBuilder stxdw(Reg dst, int off, Reg src) { return stx(DW, dst, off, src); }

    /**
     * Atomic read-modify-write at {@code dst + off}; size is W or DW, op is Opcodes.ADD/OR/AND/XOR
     * (optionally {@code | FETCH}), XCHG or CMPXCHG.
     */
    public ProgramBuilder atomic(int size, int op, Reg dst, int off, Reg src) {
        if (size != W && size != DW) throw new IllegalArgumentException("atomic size must be W or DW");
        return emit(STX | ATOMIC | size, dst, src, off16(off), op);
    }

    private static int off16(int off) {
        if (off < Short.MIN_VALUE || off > Short.MAX_VALUE) throw new IllegalArgumentException("offset " + off + " does not fit in 16 bits");
        return off;
    }

    // ---- Jumps. op is one of Opcodes.JEQ ... JSLE.
    public ProgramBuilder ja(String label) { return jumpTo(JMP | JA, null, null, 0, label, false); }
    /** {@code gotol}: JMP32 | JA with a 32-bit offset in imm (cpu v4). */
    public ProgramBuilder gotol(String label) { return jumpTo(JMP32 | JA, null, null, 0, label, true); }
    public ProgramBuilder jmp(int op, Reg dst, int imm, String label) { return jumpTo(JMP | op | K, dst, null, imm, label, false); }
    public ProgramBuilder jmp(int op, Reg dst, Reg src, String label) { return jumpTo(JMP | op | X, dst, src, 0, label, false); }
    public ProgramBuilder jmp32(int op, Reg dst, int imm, String label) { return jumpTo(JMP32 | op | K, dst, null, imm, label, false); }
    public ProgramBuilder jmp32(int op, Reg dst, Reg src, String label) { return jumpTo(JMP32 | op | X, dst, src, 0, label, false); }

    public ProgramBuilder jeq(Reg dst, int imm, String label) { return jmp(JEQ, dst, imm, label); }
    public ProgramBuilder jeq(Reg dst, Reg src, String label) { return jmp(JEQ, dst, src, label); }
    public ProgramBuilder jne(Reg dst, int imm, String label) { return jmp(JNE, dst, imm, label); }
    public ProgramBuilder jne(Reg dst, Reg src, String label) { return jmp(JNE, dst, src, label); }
    public ProgramBuilder jgt(Reg dst, int imm, String label) { return jmp(JGT, dst, imm, label); }
    public ProgramBuilder jgt(Reg dst, Reg src, String label) { return jmp(JGT, dst, src, label); }
    public ProgramBuilder jge(Reg dst, int imm, String label) { return jmp(JGE, dst, imm, label); }
    public ProgramBuilder jge(Reg dst, Reg src, String label) { return jmp(JGE, dst, src, label); }
    public ProgramBuilder jlt(Reg dst, int imm, String label) { return jmp(JLT, dst, imm, label); }
    public ProgramBuilder jlt(Reg dst, Reg src, String label) { return jmp(JLT, dst, src, label); }
    public ProgramBuilder jle(Reg dst, int imm, String label) { return jmp(JLE, dst, imm, label); }
    public ProgramBuilder jle(Reg dst, Reg src, String label) { return jmp(JLE, dst, src, label); }
    public ProgramBuilder jset(Reg dst, int imm, String label) { return jmp(JSET, dst, imm, label); }
    public ProgramBuilder jset(Reg dst, Reg src, String label) { return jmp(JSET, dst, src, label); }
    public ProgramBuilder jsgt(Reg dst, int imm, String label) { return jmp(JSGT, dst, imm, label); }
    public ProgramBuilder jsgt(Reg dst, Reg src, String label) { return jmp(JSGT, dst, src, label); }
    public ProgramBuilder jsge(Reg dst, int imm, String label) { return jmp(JSGE, dst, imm, label); }
    public ProgramBuilder jsge(Reg dst, Reg src, String label) { return jmp(JSGE, dst, src, label); }
    public ProgramBuilder jslt(Reg dst, int imm, String label) { return jmp(JSLT, dst, imm, label); }
    public ProgramBuilder jslt(Reg dst, Reg src, String label) { return jmp(JSLT, dst, src, label); }
    public ProgramBuilder jsle(Reg dst, int imm, String label) { return jmp(JSLE, dst, imm, label); }
    public ProgramBuilder jsle(Reg dst, Reg src, String label) { return jmp(JSLE, dst, src, label); }

    // JMP32: compare the low 32 bits (w registers).
    public ProgramBuilder jeq32(Reg dst, int imm, String label) { return jmp32(JEQ, dst, imm, label); }
    public ProgramBuilder jeq32(Reg dst, Reg src, String label) { return jmp32(JEQ, dst, src, label); }
    public ProgramBuilder jne32(Reg dst, int imm, String label) { return jmp32(JNE, dst, imm, label); }
    public ProgramBuilder jne32(Reg dst, Reg src, String label) { return jmp32(JNE, dst, src, label); }
    public ProgramBuilder jgt32(Reg dst, int imm, String label) { return jmp32(JGT, dst, imm, label); }
    public ProgramBuilder jgt32(Reg dst, Reg src, String label) { return jmp32(JGT, dst, src, label); }
    public ProgramBuilder jge32(Reg dst, int imm, String label) { return jmp32(JGE, dst, imm, label); }
    public ProgramBuilder jge32(Reg dst, Reg src, String label) { return jmp32(JGE, dst, src, label); }
    public ProgramBuilder jlt32(Reg dst, int imm, String label) { return jmp32(JLT, dst, imm, label); }
    public ProgramBuilder jlt32(Reg dst, Reg src, String label) { return jmp32(JLT, dst, src, label); }
    public ProgramBuilder jle32(Reg dst, int imm, String label) { return jmp32(JLE, dst, imm, label); }
    public ProgramBuilder jle32(Reg dst, Reg src, String label) { return jmp32(JLE, dst, src, label); }
    public ProgramBuilder jset32(Reg dst, int imm, String label) { return jmp32(JSET, dst, imm, label); }
    public ProgramBuilder jset32(Reg dst, Reg src, String label) { return jmp32(JSET, dst, src, label); }
    public ProgramBuilder jsgt32(Reg dst, int imm, String label) { return jmp32(JSGT, dst, imm, label); }
    public ProgramBuilder jsgt32(Reg dst, Reg src, String label) { return jmp32(JSGT, dst, src, label); }
    public ProgramBuilder jsge32(Reg dst, int imm, String label) { return jmp32(JSGE, dst, imm, label); }
    public ProgramBuilder jsge32(Reg dst, Reg src, String label) { return jmp32(JSGE, dst, src, label); }
    public ProgramBuilder jslt32(Reg dst, int imm, String label) { return jmp32(JSLT, dst, imm, label); }
    public ProgramBuilder jslt32(Reg dst, Reg src, String label) { return jmp32(JSLT, dst, src, label); }
    public ProgramBuilder jsle32(Reg dst, int imm, String label) { return jmp32(JSLE, dst, imm, label); }
    public ProgramBuilder jsle32(Reg dst, Reg src, String label) { return jmp32(JSLE, dst, src, label); }

    // ---- Calls.
    /** Calls helper {@code id}. */
    public ProgramBuilder call(int id) { return emit(JMP | CALL | K, null, null, 0, id); }
    /** bpf-to-bpf call to the subprogram at {@code label} (src = 1, imm = pc-relative). */
    public ProgramBuilder callLocal(String label) {
        fixups.add(new Fixup(insns.size(), label, true));
        return insn(new Insn(JMP | CALL | K, 0, PSEUDO_CALL, 0, 0));
    }
    /** Calls the helper whose id is in {@code reg}. */
    public ProgramBuilder callx(Reg reg) { return emit(JMP | CALL | X, reg, null, 0, 0); }
    public ProgramBuilder exit() { return emit(JMP | EXIT, null, null, 0, 0); }

    /** The slots with every label resolved. */
    public List<Insn> insns() {
        List<Insn> out = new ArrayList<>(insns);
        for (Fixup fx : fixups) {
            Integer target = labels.get(fx.label());
            if (target == null) throw new IllegalStateException("undefined label '" + fx.label() + "' (used at pc " + fx.pc() + ")");
            int rel = target - fx.pc() - 1;
            Insn i = out.get(fx.pc());
            if (fx.inImm()) {
                out.set(fx.pc(), new Insn(i.opcode(), i.dst(), i.src(), i.off(), rel));
            } else {
                if (rel < Short.MIN_VALUE || rel > Short.MAX_VALUE) {
                    throw new IllegalStateException("jump at pc " + fx.pc() + " to label '" + fx.label() + "' is " + rel + " slots away, beyond the 16-bit offset range (use gotol)");
                }
                out.set(fx.pc(), new Insn(i.opcode(), i.dst(), i.src(), rel, i.imm()));
            }
        }
        return out;
    }

    public Program build(String name) { return new Program(name, insns()); }
}
