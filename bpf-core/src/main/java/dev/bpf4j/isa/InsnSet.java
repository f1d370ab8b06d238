package dev.bpf4j.isa;

import static dev.bpf4j.isa.Opcodes.*;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The RFC 9669 instruction set (cpu v1-v4, plus the legacy packet loads and {@code callx}) as one
 * table of {@link InsnEncoding}s. The assembler and both printers share it so that no
 * mnemonic or opcode list is written twice. This is a table, not a verifier: it knows which
 * opcode/dst/src/off/imm combinations are a well-formed encoding of an instruction (selector fields
 * such as the off of sdiv or the imm of an atomic, and zero in every unused field), not whether
 * registers exist (dst &le; 10), targets are in range or an lddw has its second slot.
 */
public final class InsnSet {
    private InsnSet() {}

    private static final List<InsnEncoding> ENCODINGS = new ArrayList<>();
    @SuppressWarnings("unchecked")
    private static final List<InsnEncoding>[] BY_OPCODE = new List[256];
    private static final Map<String, List<InsnEncoding>> BY_MNEMONIC = new LinkedHashMap<>();
    private static final Map<String, String> ALIASES = new HashMap<>();

    private static final String[] ALU_NAMES = new String[16];
    private static final String[] ALU_SYMBOLS = new String[16];
    private static final String[] JMP_NAMES = new String[16];
    private static final String[] JMP_SYMBOLS = new String[16];

    static {
        alu(ADD, "add", "+="); alu(SUB, "sub", "-="); alu(MUL, "mul", "*="); alu(DIV, "div", "/=");
        alu(OR, "or", "|="); alu(AND, "and", "&="); alu(LSH, "lsh", "<<="); alu(RSH, "rsh", ">>=");
        alu(MOD, "mod", "%="); alu(XOR, "xor", "^="); alu(MOV, "mov", "="); alu(ARSH, "arsh", "s>>=");
        jmp(JEQ, "jeq", "=="); jmp(JGT, "jgt", ">"); jmp(JGE, "jge", ">="); jmp(JSET, "jset", "&");
        jmp(JNE, "jne", "!="); jmp(JSGT, "jsgt", "s>"); jmp(JSGE, "jsge", "s>="); jmp(JLT, "jlt", "<");
        jmp(JLE, "jle", "<="); jmp(JSLT, "jslt", "s<"); jmp(JSLE, "jsle", "s<=");
        buildAlu();
        buildJumps();
        buildLoadsAndStores();
        buildAtomics();
        for (int i = 0; i < 256; i++) BY_OPCODE[i] = BY_OPCODE[i] == null ? List.of() : List.copyOf(BY_OPCODE[i]);
        // Spellings other assemblers use for the same forms.
        ALIASES.put("ldxbsx", "ldxsb"); ALIASES.put("ldxhsx", "ldxsh"); ALIASES.put("ldxwsx", "ldxsw");
        ALIASES.put("swap16", "bswap16"); ALIASES.put("swap32", "bswap32"); ALIASES.put("swap64", "bswap64");
        ALIASES.put("gotol", "ja32");
        ALIASES.put("ld_pseudo", "lddw");
        for (String op : List.of("add", "sub", "mul", "div", "sdiv", "or", "and", "lsh", "rsh", "neg", "mod",
                "smod", "xor", "mov", "arsh")) {
            ALIASES.put(op + "64", op);
        }
    }

    private static void alu(int op, String name, String symbol) { ALU_NAMES[op >> 4] = name; ALU_SYMBOLS[op >> 4] = symbol; }

    private static void jmp(int op, String name, String symbol) { JMP_NAMES[op >> 4] = name; JMP_SYMBOLS[op >> 4] = symbol; }

    private static void add(String mnemonic, int opcode, Shape shape, String symbol, int off, long imm, int src) {
        InsnEncoding f = new InsnEncoding(mnemonic, opcode, shape, symbol, off, imm, src);
        ENCODINGS.add(f);
        if (BY_OPCODE[opcode] == null) BY_OPCODE[opcode] = new ArrayList<>();
        BY_OPCODE[opcode].add(f);
        BY_MNEMONIC.computeIfAbsent(mnemonic, k -> new ArrayList<>()).add(f);
    }

    private static void buildAlu() {
        int free = InsnEncoding.FREE;
        for (int cls : new int[] {ALU64, ALU}) {
            String suffix = cls == ALU ? "32" : "";
            for (int op = 0; op < 16; op++) {
                String name = ALU_NAMES[op];
                if (name == null) continue;
                String sym = ALU_SYMBOLS[op];
                add(name + suffix, cls | (op << 4) | K, Shape.ALU_IMM, sym, 0, free, 0);
                add(name + suffix, cls | (op << 4) | X, Shape.ALU_REG, sym, 0, 0, free);
            }
            // cpu v4 signed division: DIV/MOD with off = 1.
            add("sdiv" + suffix, cls | DIV | K, Shape.ALU_IMM, "s/=", 1, free, 0);
            add("sdiv" + suffix, cls | DIV | X, Shape.ALU_REG, "s/=", 1, 0, free);
            add("smod" + suffix, cls | MOD | K, Shape.ALU_IMM, "s%=", 1, free, 0);
            add("smod" + suffix, cls | MOD | X, Shape.ALU_REG, "s%=", 1, 0, free);
            add("neg" + suffix, cls | NEG | K, Shape.ALU_UNARY, "-", 0, 0, 0);
            // cpu v4 sign-extending moves: MOV | X with off = source width in bits.
            int[] widths = cls == ALU64 ? new int[] {8, 16, 32} : new int[] {8, 16};
            for (int w : widths) add("movsx" + w + (cls == ALU64 ? "64" : "32"), cls | MOV | X, Shape.MOVSX, "=", w, 0, free);
        }
        for (int w : new int[] {16, 32, 64}) {
            add("le" + w, ALU | END | TO_LE, Shape.END, "le", 0, w, 0);
            add("be" + w, ALU | END | TO_BE, Shape.END, "be", 0, w, 0);
            add("bswap" + w, ALU64 | END | TO_LE, Shape.END, "bswap", 0, w, 0);
        }
    }

    private static void buildJumps() {
        int free = InsnEncoding.FREE;
        add("ja", JMP | JA | K, Shape.JA, "goto", free, 0, 0);
        add("ja32", JMP32 | JA | K, Shape.GOTOL, "gotol", 0, free, 0);
        for (int cls : new int[] {JMP, JMP32}) {
            String suffix = cls == JMP32 ? "32" : "";
            for (int op = 0; op < 16; op++) {
                String name = JMP_NAMES[op];
                if (name == null) continue;
                add(name + suffix, cls | (op << 4) | K, Shape.JCOND_IMM, JMP_SYMBOLS[op], free, free, 0);
                add(name + suffix, cls | (op << 4) | X, Shape.JCOND_REG, JMP_SYMBOLS[op], free, 0, free);
            }
        }
        add("call", JMP | CALL | K, Shape.CALL, "call", 0, free, CALL_HELPER);
        add("call local", JMP | CALL | K, Shape.CALL, "call", 0, free, PSEUDO_CALL);
        add("call runtime", JMP | CALL | K, Shape.CALL, "call", 0, free, PSEUDO_KFUNC_CALL);
        add("callx", JMP | CALL | X, Shape.CALLX, "callx", 0, 0, 0);
        add("exit", JMP | EXIT | K, Shape.EXIT, "exit", 0, 0, 0);
    }

    private static void buildLoadsAndStores() {
        int free = InsnEncoding.FREE;
        // lddw and its pseudo sources; the symbol is the RFC 9669 (section 5.4) function of imm.
        String[] pseudo = {"", "map_by_fd", "map_val(map_by_fd)", "var_addr", "code_addr", "map_by_idx", "map_val(map_by_idx)"};
        for (int src = PSEUDO_IMM64; src <= PSEUDO_MAP_IDX_VALUE; src++) add("lddw", LDDW, Shape.LDDW, pseudo[src], 0, free, src);
        int[] sizes = {W, H, B, DW};
        String[] sizeNames = {"w", "h", "b", "dw"};
        for (int i = 0; i < 4; i++) {
            int sz = sizes[i];
            String s = sizeNames[i];
            add("ldx" + s, LDX | MEM | sz, Shape.LDX, "", free, 0, free);
            add("st" + s, ST | MEM | sz, Shape.ST, "", free, free, 0);
            add("stx" + s, STX | MEM | sz, Shape.STX, "", free, 0, free);
            if (sz != DW) {
                add("ldxs" + s, LDX | MEMSX | sz, Shape.LDX, "", free, 0, free);
                // Legacy packet access (RFC 9669 section 5.5): kept so old programs disassemble.
                add("ldabs" + s, LD | ABS | sz, Shape.LD_ABS, "", 0, free, 0);
                add("ldind" + s, LD | IND | sz, Shape.LD_IND, "", 0, free, free);
            }
        }
    }

    private static void buildAtomics() {
        int free = InsnEncoding.FREE;
        for (int sz : new int[] {DW, W}) {
            String suffix = sz == W ? "32" : "";
            int opcode = STX | ATOMIC | sz;
            for (int op : new int[] {ADD, OR, AND, XOR}) {
                String name = ALU_NAMES[op >> 4];
                add("lock " + name + suffix, opcode, Shape.ATOMIC, ALU_SYMBOLS[op >> 4], free, op, free);
                add("lock fetch " + name + suffix, opcode, Shape.ATOMIC, "atomic_fetch_" + name, free, op | FETCH, free);
            }
            add("lock xchg" + suffix, opcode, Shape.ATOMIC, "xchg", free, XCHG, free);
            add("lock cmpxchg" + suffix, opcode, Shape.ATOMIC, "cmpxchg", free, CMPXCHG, free);
        }
    }

    /** Every form, in table order. */
    public static List<InsnEncoding> encodings() { return Collections.unmodifiableList(ENCODINGS); }

    /** The forms sharing an opcode byte; empty when the byte names no instruction. */
    public static List<InsnEncoding> encodingsOf(int opcode) { return BY_OPCODE[opcode & 0xff]; }

    /** True when some valid instruction uses this opcode byte. */
    public static boolean isValidOpcode(int opcode) { return opcode >= 0 && opcode < 256 && !BY_OPCODE[opcode].isEmpty(); }

    /** The form {@code insn} is an instance of, judging opcode and fixed fields; null if none. */
    public static InsnEncoding encodingOf(Insn insn) {
        for (InsnEncoding f : BY_OPCODE[insn.opcode()]) if (f.matches(insn)) return f;
        return null;
    }

    /** True when the slot is a well-formed encoding of a defined instruction (see {@link InsnEncoding#matches}). */
    public static boolean isValid(Insn insn) { return encodingOf(insn) != null; }

    /** The conformance mnemonic of {@code insn}, or null when it names no instruction. */
    public static String mnemonic(Insn insn) {
        InsnEncoding f = encodingOf(insn);
        return f == null ? null : f.mnemonic();
    }

    /** Forms spelled {@code mnemonic} (aliases such as {@code swap16} or {@code ldxbsx} included). */
    public static List<InsnEncoding> byMnemonic(String mnemonic) {
        String m = ALIASES.getOrDefault(mnemonic, mnemonic);
        return BY_MNEMONIC.getOrDefault(m, List.of());
    }

    /** The llvm-objdump operator of an ALU op field (e.g. {@code +=}), or null. */
    public static String aluSymbol(int opcode) { return ALU_SYMBOLS[Opcodes.op(opcode) >> 4]; }
}
