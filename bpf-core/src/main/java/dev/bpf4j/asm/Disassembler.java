package dev.bpf4j.asm;

import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.isa.InsnSet;
import dev.bpf4j.isa.InsnEncoding;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Prints slots in llvm-objdump's BPF syntax ({@code r0 = *(u32 *)(r1 + 4)}, {@code if r1 == 0x1 goto +1},
 * {@code w0 += w1}, {@code r0 = 0x123 ll}, {@code lock *(u64 *)(r10 - 8) += r1} ...). Immediates are hex by
 * default (as llvm-objdump 19+ prints them); {@link #llvm14()} prints them in decimal exactly as the
 * installed LLVM 14 does. Memory offsets, jump offsets and helper ids are decimal.
 *
 * <p>Forms LLVM 14 cannot print use the spelling of newer LLVM where one exists: {@code r0 s/= r1},
 * {@code r0 s%= r1}, {@code r0 = (s8)r1}, {@code r0 = *(s16 *)(r1 + 2)}, {@code r0 = bswap16 r0},
 * {@code gotol +70000}, {@code callx r2}, {@code *(u32 *)(r1 + 2) = 0x5}, {@code if r1 & 0x4 goto +1},
 * {@code r0 %= r1}. Choices of our own: local calls print as {@code call pc+N} (as bpftool does; LLVM
 * prints a bare number), kfunc calls as {@code call kfunc:N}, an lddw with a pseudo source as the RFC 9669
 * function it stands for ({@code r1 = map_by_fd(5) ll}, {@code r1 = map_val(map_by_idx(0)) + 8 ll});
 * llvm prints {@code ld_pseudo r1, 1, 5}, dropping the second imm. Slots that are no well-formed
 * instruction (see {@link InsnSet#isValid}) print as {@code .byte} lines with a {@code #} comment; the
 * disassembler never throws on bad input.
 */
public final class Disassembler {
    private final boolean hex;

    private Disassembler(boolean hex) { this.hex = hex; }

    /** Hex immediates, like current llvm-objdump. */
    public static Disassembler standard() { return new Disassembler(true); }

    /** Decimal immediates, like LLVM 14's llvm-objdump. */
    public static Disassembler llvm14() { return new Disassembler(false); }

    /** A listing {@code "   pc: text"} of every instruction, one per line. */
    public static String disassemble(Insn[] code) { return standard().listing(code); }

    public static String disassemble(List<Insn> code) { return standard().listing(code.toArray(new Insn[0])); }

    public static String disassemble(Program program) { return standard().listing(program.toArray()); }

    /** Decodes and disassembles raw bytecode; a trailing partial slot is reported, not thrown. */
    public static String disassemble(byte[] bytecode) {
        int whole = bytecode.length / Insn.SIZE * Insn.SIZE;
        byte[] body = Arrays.copyOf(bytecode, whole);
        String text = disassemble(Insn.decodeAll(body));
        if (whole != bytecode.length) text += "# " + (bytecode.length - whole) + " trailing byte(s) are not a whole instruction\n";
        return text;
    }

    public String listing(Insn[] code) {
        StringBuilder sb = new StringBuilder();
        List<String> lines = lines(code);
        int pc = 0;
        for (String line : lines) {
            sb.append(String.format("%5d: %s\n", pc, line));
            pc += code[pc].isLddw() && pc + 1 < code.length && !line.startsWith(".byte") ? 2 : 1;
        }
        return sb.toString();
    }

    /** One text per instruction (an lddw pair is one entry). */
    public List<String> lines(Insn[] code) {
        List<String> out = new ArrayList<>();
        for (int pc = 0; pc < code.length; ) {
            String text = text(code, pc);
            out.add(text);
            pc += code[pc].isLddw() && !text.startsWith(".byte") ? 2 : 1;
        }
        return out;
    }

    /** The text of the instruction at {@code pc}. */
    public String text(Insn[] code, int pc) {
        String s = format(code, pc);
        return s != null ? s : RawSlot.bytes(code[pc]) + " # " + RawSlot.reason(code, pc);
    }

    private String format(Insn[] code, int pc) {
        Insn i = code[pc];
        InsnEncoding f = InsnSet.encodingOf(i);
        if (f == null) return null;
        boolean w64 = f.is64();
        String dst = reg(i.dst(), w64), src = reg(i.src(), w64);
        return switch (f.shape()) {
            case ALU_REG -> dst + " " + f.symbol() + " " + src;
            case ALU_IMM -> dst + " " + f.symbol() + " " + imm(i.imm());
            case ALU_UNARY -> dst + " = -" + dst;
            case MOVSX -> dst + " = (s" + i.off() + ")" + src;
            case END -> "r" + i.dst() + " = " + f.symbol() + i.imm() + " r" + i.dst();
            case LDDW -> {
                if (pc + 1 >= code.length) yield null;
                long v = i.imm64(code[pc + 1]);
                if (f.src() == 0) yield "r" + i.dst() + " = " + imm(v) + " ll";
                String fn = new LddwOperand(i.src(), i.imm(), code[pc + 1].imm()).format();
                yield "r" + i.dst() + " = " + (fn != null ? fn : "ld_pseudo(" + i.src() + ", " + imm(v) + ")") + " ll";
            }
            case LD_ABS -> "r0 = *(u" + bits(f) + " *)skb[" + imm(i.imm()) + "]";
            case LD_IND -> "r0 = *(u" + bits(f) + " *)skb[r" + i.src() + (i.imm() == 0 ? "" : i.imm() < 0 ? " - " + imm(-(long) i.imm()) : " + " + imm(i.imm())) + "]";
            case LDX -> "r" + i.dst() + " = *(" + (Opcodes.mode(i.opcode()) == Opcodes.MEMSX ? "s" : "u") + bits(f) + " *)" + addr(i.src(), i.off());
            case ST -> "*(u" + bits(f) + " *)" + addr(i.dst(), i.off()) + " = " + imm(i.imm());
            case STX -> "*(u" + bits(f) + " *)" + addr(i.dst(), i.off()) + " = r" + i.src();
            case ATOMIC -> atomic(f, i);
            case JA -> "goto " + rel(i.off());
            case GOTOL -> "gotol " + rel(i.imm());
            case JCOND_IMM -> "if " + dst + " " + f.symbol() + " " + imm(i.imm()) + " goto " + rel(i.off());
            case JCOND_REG -> "if " + dst + " " + f.symbol() + " " + src + " goto " + rel(i.off());
            case CALL -> switch (f.src()) {
                case Opcodes.PSEUDO_CALL -> "call pc" + rel(i.imm());
                case Opcodes.PSEUDO_KFUNC_CALL -> "call kfunc:" + i.imm();
                default -> "call " + i.imm();
            };
            case CALLX -> "callx r" + i.dst();
            case EXIT -> "exit";
        };
    }

    private static String atomic(InsnEncoding f, Insn i) {
        boolean dw = f.sizeBytes() == 8;
        String r = dw ? "r" : "w";
        String s = r + i.src();
        String sym = f.symbol();
        if (i.imm() == Opcodes.XCHG) {
            return s + " = " + (dw ? "xchg_64(" : "xchg32_32(") + "r" + i.dst() + offset(i.off()) + ", " + s + ")";
        }
        if (i.imm() == Opcodes.CMPXCHG) {
            return r + "0 = " + (dw ? "cmpxchg_64(" : "cmpxchg32_32(") + "r" + i.dst() + offset(i.off()) + ", " + r + "0, " + s + ")";
        }
        String ptr = "(u" + (dw ? 64 : 32) + " *)" + addr(i.dst(), i.off());
        if ((i.imm() & Opcodes.FETCH) != 0) return s + " = " + sym + "(" + ptr + ", " + s + ")";
        return "lock *" + ptr + " " + sym + " " + s;
    }

    private static int bits(InsnEncoding f) { return f.sizeBytes() * 8; }

    private static String reg(int r, boolean w64) { return (w64 ? "r" : "w") + r; }

    private static String addr(int r, int off) { return "(r" + r + offset(off) + ")"; }

    private static String offset(int off) { return off < 0 ? " - " + (-off) : " + " + off; }

    private static String rel(long n) { return n < 0 ? Long.toString(n) : "+" + n; }

    private String imm(long v) {
        if (!hex) return Long.toString(v);
        return v < 0 && v != Long.MIN_VALUE ? "-0x" + Long.toHexString(-v) : "0x" + Long.toHexString(v);
    }
}
