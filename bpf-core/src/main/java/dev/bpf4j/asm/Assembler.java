package dev.bpf4j.asm;

import dev.bpf4j.isa.Shape;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.isa.InsnSet;
import dev.bpf4j.isa.InsnEncoding;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Assembles the text syntax of the public eBPF conformance suites (Alan Jowett's bpf_conformance
 * {@code tests/*.data}, uBPF's {@code assembler.py}): one instruction per line, {@code #} comments,
 * {@code label:} lines, jump targets as labels or {@code +N}/{@code -N}. As in bpf_conformance, the
 * first {@code exit} is an implicit label {@code exit} unless a label of that name is declared.
 * A {@code .byte} line with eight values emits one raw slot, so that {@link AsmPrinter} can write any
 * slot. Mnemonics come from {@link InsnSet}.
 *
 * <p>Entry points: {@link #assemble(String)} and {@link #assembleProgram(String, String)}.
 */
public final class Assembler {
    private final List<Insn> out = new ArrayList<>();
    private final Map<String, Integer> labels = new HashMap<>();
    private final List<Fixup> fixups = new ArrayList<>();
    private final AsmSymbols symbols;
    private int firstExit = -1;

    private record Fixup(int pc, String label, boolean inImm, int line, String text) {}

    private Assembler(AsmSymbols symbols) { this.symbols = symbols; }

    /** Assembles {@code text} into instruction slots (an lddw yields two). */
    public static List<Insn> assemble(String text) { return assemble(text, AsmSymbols.NONE); }

    /** Assembles {@code text}, resolving helper and map names through {@code symbols}. */
    public static List<Insn> assemble(String text, AsmSymbols symbols) {
        Assembler a = new Assembler(symbols);
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) a.line(i + 1, lines[i]);
        a.resolve();
        return List.copyOf(a.out);
    }

    /** Assembles {@code text} into a program called {@code name}. */
    public static Program assembleProgram(String name, String text) { return assembleProgram(name, text, AsmSymbols.NONE); }

    /** Assembles {@code text} into a program called {@code name}; errors name the program. */
    public static Program assembleProgram(String name, String text, AsmSymbols symbols) {
        try {
            return new Program(name, assemble(text, symbols));
        } catch (AssemblerException e) {
            throw e.in("program '" + name + "'");
        }
    }

    /** Assembles {@code text} into little-endian bytecode. */
    public static byte[] assembleBytes(String text) { return Insn.encodeAll(assemble(text).toArray(new Insn[0])); }

    private void line(int no, String raw) {
        String s = raw;
        int hash = s.indexOf('#');
        if (hash >= 0) s = s.substring(0, hash);
        s = s.strip();
        if (s.endsWith(";")) s = s.substring(0, s.length() - 1).strip(); // uBPF allows a ';' terminator
        if (s.isEmpty()) return;
        int colon = s.indexOf(':');
        if (colon > 0 && s.substring(0, colon).matches("[A-Za-z_.$][\\w.$]*")) {
            String label = s.substring(0, colon);
            if (labels.containsKey(label)) throw new AssemblerException(no, raw, "duplicate label '" + label + "'");
            labels.put(label, out.size());
            s = s.substring(colon + 1).strip();
            if (s.isEmpty()) return;
        }
        try {
            instruction(no, raw, s);
        } catch (IllegalArgumentException e) {
            throw new AssemblerException(no, raw, e.getMessage());
        }
    }

    private void instruction(int no, String raw, String s) {
        String[] head = s.split("\\s+", 2);
        String mnemonic = head[0].toLowerCase();
        String rest = head.length > 1 ? head[1].strip() : "";
        if (mnemonic.equals(".byte")) {
            rawSlot(rest);
            return;
        }
        if (mnemonic.equals("lock")) {
            // "lock [fetch] <op> [mem], %reg": the op word (and fetch) belong to the mnemonic.
            String[] w = rest.split("\\s+", 2);
            boolean fetch = w.length == 2 && w[0].equalsIgnoreCase("fetch");
            if (fetch) w = w[1].split("\\s+", 2);
            if (w.length < 2) throw new IllegalArgumentException("expected 'lock [fetch] <op> [mem], %reg'");
            mnemonic = "lock " + (fetch ? "fetch " : "") + w[0].toLowerCase();
            rest = w[1];
        } else if (mnemonic.equals("call")) {
            String[] w = rest.split("\\s+", 2);
            if (w.length == 2 && (w[0].equals("local") || w[0].equals("runtime") || w[0].equals("helper"))) {
                mnemonic = w[0].equals("helper") ? "call" : "call " + w[0];
                rest = w[1];
            }
            if (mnemonic.equals("call") && Operands.isRegister(rest)) mnemonic = "callx";
        }
        List<String> ops = splitOperands(rest);
        List<InsnEncoding> forms = InsnSet.byMnemonic(mnemonic);
        if (forms.isEmpty()) throw new IllegalArgumentException("unknown mnemonic '" + mnemonic + "'");
        InsnEncoding form = pick(forms, ops);
        encode(form, ops, no, raw);
    }

    private static List<String> splitOperands(String rest) {
        List<String> ops = new ArrayList<>();
        if (rest.isEmpty()) return ops;
        for (String p : rest.split(",")) ops.add(p.strip());
        return ops;
    }

    /** Register and immediate variants share a mnemonic; the second operand decides. */
    private static InsnEncoding pick(List<InsnEncoding> forms, List<String> ops) {
        if (forms.size() == 1) return forms.get(0);
        boolean reg = ops.size() >= 2 && Operands.isRegister(ops.get(1));
        for (InsnEncoding f : forms) {
            Shape sh = f.shape();
            boolean wantsReg = sh == Shape.ALU_REG || sh == Shape.JCOND_REG;
            if (wantsReg == reg) return f;
        }
        return forms.get(0);
    }

    private void encode(InsnEncoding f, List<String> ops, int no, String raw) {
        int pc = out.size();
        switch (f.shape()) {
            case ALU_REG, MOVSX -> { arity(f, ops, 2); emit(f.encode(reg(ops, 0), reg(ops, 1), 0, 0)); }
            case ALU_IMM -> { arity(f, ops, 2); emit(f.encode(reg(ops, 0), 0, 0, Operands.imm32(ops.get(1)))); }
            case ALU_UNARY, END -> { arity(f, ops, 1); emit(f.encode(reg(ops, 0), 0, 0, 0)); }
            case LDDW -> {
                LddwOperand v;
                if (ops.size() == 3) { // llvm's "ld_pseudo dst, src, imm64"
                    long imm = Operands.imm64(ops.get(2));
                    v = new LddwOperand(Operands.imm32(ops.get(1)), (int) imm, (int) (imm >>> 32));
                } else {
                    arity(f, ops, 2);
                    v = LddwOperand.parse(ops.get(1), symbols);
                }
                InsnEncoding chosen = InsnSet.byMnemonic("lddw").stream().filter(c -> c.src() == v.src()).findFirst()
                        .orElseThrow(() -> new IllegalArgumentException("lddw source must be 0..6, got " + v.src()));
                emit(chosen.encode(reg(ops, 0), 0, 0, v.imm()));
                emit(new Insn(0, 0, 0, 0, v.nextImm()));
            }
            case LD_ABS -> { arity(f, ops, 1); emit(f.encode(0, 0, 0, Operands.imm32(ops.get(0)))); }
            case LD_IND -> { arity(f, ops, 2); emit(f.encode(0, reg(ops, 0), 0, Operands.imm32(ops.get(1)))); }
            case LDX -> {
                arity(f, ops, 2);
                int[] m = Operands.memory(ops.get(1));
                emit(f.encode(reg(ops, 0), m[0], m[1], 0));
            }
            case ST -> {
                arity(f, ops, 2);
                int[] m = Operands.memory(ops.get(0));
                emit(f.encode(m[0], 0, m[1], Operands.imm32(ops.get(1))));
            }
            case STX, ATOMIC -> {
                arity(f, ops, 2);
                int[] m = Operands.memory(ops.get(0));
                emit(f.encode(m[0], reg(ops, 1), m[1], 0));
            }
            case JA -> { arity(f, ops, 1); emit(f.encode(0, 0, target(ops.get(0), pc, false, no, raw), 0)); }
            case GOTOL -> { arity(f, ops, 1); emit(f.encode(0, 0, 0, target(ops.get(0), pc, true, no, raw))); }
            case JCOND_IMM -> {
                arity(f, ops, 3);
                emit(f.encode(reg(ops, 0), 0, target(ops.get(2), pc, false, no, raw), Operands.imm32(ops.get(1))));
            }
            case JCOND_REG -> { arity(f, ops, 3); emit(f.encode(reg(ops, 0), reg(ops, 1), target(ops.get(2), pc, false, no, raw), 0)); }
            case CALL -> {
                arity(f, ops, 1);
                String t = ops.get(0);
                int imm;
                if (f.src() == Opcodes.PSEUDO_CALL) imm = target(t, pc, true, no, raw);
                else if (f.src() == Opcodes.CALL_HELPER && !Operands.isNumber(t)) imm = helper(t);
                else imm = Operands.imm32(t);
                emit(f.encode(0, 0, 0, imm));
            }
            case CALLX -> { arity(f, ops, 1); emit(f.encode(reg(ops, 0), 0, 0, 0)); }
            case EXIT -> {
                arity(f, ops, 0);
                if (firstExit < 0) firstExit = pc;
                emit(f.encode(0, 0, 0, 0));
            }
            default -> throw new IllegalStateException(f.shape().name());
        }
    }

    private static void arity(InsnEncoding f, List<String> ops, int n) {
        if (ops.size() != n) {
            throw new IllegalArgumentException("'" + f.mnemonic() + "' takes " + n + " operand" + (n == 1 ? "" : "s") + ", got " + ops.size());
        }
    }

    private int helper(String name) {
        Integer id = symbols.helper(name);
        if (id == null) throw new IllegalArgumentException("unknown helper '" + name + "'");
        return id;
    }

    private static int reg(List<String> ops, int i) { return Operands.register(ops.get(i)); }

    /** A relative target, or 0 now and a fixup once all labels are known. */
    private int target(String t, int pc, boolean inImm, int no, String raw) {
        if (Operands.isRelative(t)) return inImm ? Operands.imm32(t) : Operands.off16(t);
        if (!t.matches("[A-Za-z_.$][\\w.$]*")) throw new IllegalArgumentException("bad jump target '" + t + "'");
        fixups.add(new Fixup(pc, t, inImm, no, raw));
        return 0;
    }

    private void rawSlot(String rest) {
        List<String> ops = splitOperands(rest);
        if (ops.size() != Insn.SIZE) throw new IllegalArgumentException(".byte takes exactly 8 values (one slot), got " + ops.size());
        byte[] b = new byte[Insn.SIZE];
        for (int i = 0; i < Insn.SIZE; i++) {
            long v = Operands.number(ops.get(i)).longValue();
            if (v < -128 || v > 255) throw new IllegalArgumentException("byte out of range: " + ops.get(i));
            b[i] = (byte) v;
        }
        emit(Insn.decode(b, 0));
    }

    private void emit(Insn insn) { out.add(insn); }

    private void resolve() {
        if (firstExit >= 0) labels.putIfAbsent("exit", firstExit);
        for (Fixup fx : fixups) {
            Integer target = labels.get(fx.label());
            if (target == null) throw new AssemblerException(fx.line(), fx.text(), "undefined label '" + fx.label() + "'");
            int rel = target - fx.pc() - 1;
            Insn i = out.get(fx.pc());
            if (fx.inImm()) {
                out.set(fx.pc(), new Insn(i.opcode(), i.dst(), i.src(), i.off(), rel));
            } else {
                if (rel < Short.MIN_VALUE || rel > Short.MAX_VALUE) {
                    throw new AssemblerException(fx.line(), fx.text(), "jump to '" + fx.label() + "' is " + rel + " slots away, beyond the 16-bit offset range (use ja32/gotol)");
                }
                out.set(fx.pc(), new Insn(i.opcode(), i.dst(), i.src(), rel, i.imm()));
            }
        }
    }
}
