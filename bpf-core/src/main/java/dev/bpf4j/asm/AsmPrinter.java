package dev.bpf4j.asm;

import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.isa.InsnSet;
import dev.bpf4j.isa.InsnEncoding;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;

import java.util.ArrayList;
import java.util.List;

/**
 * Prints slots in the conformance-suite syntax that {@link Assembler} reads, so that
 * asm → bytes → asm round-trips. Jump targets are written as relative {@code +N}/{@code -N}.
 * Each printed line is checked by assembling it again; a slot that would not come back identical
 * (unknown opcode, non-zero reserved fields, a lone lddw half) is written as a {@code .byte} line
 * with a comment, which the assembler also reads, so the round trip holds for every slot.
 */
public final class AsmPrinter {
    private AsmPrinter() {}

    /** One line per instruction (an lddw pair is one line), joined by newlines. */
    public static String print(List<Insn> code) { return String.join("\n", lines(code.toArray(new Insn[0]))) + "\n"; }

    public static String print(Insn[] code) { return String.join("\n", lines(code)) + "\n"; }

    public static String print(Program program) { return print(program.toArray()); }

    public static List<String> lines(Insn[] code) {
        List<String> out = new ArrayList<>();
        for (int pc = 0; pc < code.length; ) {
            Insn insn = code[pc];
            String text = format(code, pc);
            int width = insn.isLddw() && text != null ? 2 : 1;
            if (text != null && !reassembles(text, code, pc, width)) text = null;
            if (text == null) {
                out.add(RawSlot.bytes(insn) + " # " + RawSlot.reason(code, pc));
                width = 1;
            } else {
                out.add(text);
            }
            pc += width;
        }
        return out;
    }

    private static boolean reassembles(String text, Insn[] code, int pc, int width) {
        try {
            List<Insn> back = Assembler.assemble(text);
            if (back.size() != width) return false;
            for (int i = 0; i < width; i++) if (!back.get(i).equals(code[pc + i])) return false;
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** The symbolic text of the instruction at {@code pc}, or null if it has none. */
    static String format(Insn[] code, int pc) {
        Insn i = code[pc];
        InsnEncoding f = InsnSet.encodingOf(i);
        if (f == null) return null;
        String m = f.mnemonic();
        return switch (f.shape()) {
            case ALU_REG, MOVSX -> m + " " + reg(i.dst()) + ", " + reg(i.src());
            case ALU_IMM -> m + " " + reg(i.dst()) + ", " + i.imm();
            case ALU_UNARY, END, CALLX -> m + " " + reg(i.dst());
            case LDDW -> {
                if (pc + 1 >= code.length) yield null;
                String v = new LddwOperand(i.src(), i.imm(), code[pc + 1].imm()).format();
                yield v == null ? null : m + " " + reg(i.dst()) + ", " + v;
            }
            case LD_ABS -> m + " " + i.imm();
            case LD_IND -> m + " " + reg(i.src()) + ", " + i.imm();
            case LDX -> m + " " + reg(i.dst()) + ", " + mem(i.src(), i.off());
            case ST -> m + " " + mem(i.dst(), i.off()) + ", " + i.imm();
            case STX, ATOMIC -> m + " " + mem(i.dst(), i.off()) + ", " + reg(i.src());
            case JA -> m + " " + rel(i.off());
            case GOTOL -> m + " " + rel(i.imm());
            case JCOND_IMM -> m + " " + reg(i.dst()) + ", " + i.imm() + ", " + rel(i.off());
            case JCOND_REG -> m + " " + reg(i.dst()) + ", " + reg(i.src()) + ", " + rel(i.off());
            case CALL -> m + " " + (f.src() == Opcodes.PSEUDO_CALL ? rel(i.imm()) : Integer.toString(i.imm()));
            case EXIT -> m;
        };
    }

    private static String reg(int r) { return "%r" + r; }

    private static String mem(int r, int off) { return "[" + reg(r) + (off < 0 ? "-" + (-off) : "+" + off) + "]"; }

    private static String rel(int n) { return n < 0 ? Integer.toString(n) : "+" + n; }
}
