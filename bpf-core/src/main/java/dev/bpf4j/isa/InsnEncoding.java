package dev.bpf4j.isa;

/**
 * One valid encoding of an instruction: an opcode byte plus the values its non-operand fields must
 * hold (e.g. {@code sdiv} is DIV with off = 1, {@code be16} is END with imm = 16). Not the verifier's
 * {@code InsnForm}, which is what a checked slot does (jump, call, load, ...), whatever its encoding.
 *
 * @param mnemonic the conformance-suite mnemonic ({@code add32}, {@code ldxdw}, {@code lock fetch add},
 *                 {@code call local} ...)
 * @param opcode   the opcode byte
 * @param shape    which fields are operands
 * @param symbol   the operator in llvm-objdump syntax ({@code +=}, {@code s>=}, {@code atomic_fetch_add} ...), or ""
 * @param off      the required offset, or {@link #FREE} when the offset is an operand (or unused)
 * @param imm      the required immediate, or {@link #FREE}
 * @param src      the required src register, or {@link #FREE}
 */
public record InsnEncoding(String mnemonic, int opcode, Shape shape, String symbol, int off, long imm, int src) {
    /** Marks a field that is an operand rather than fixed by the form. */
    public static final int FREE = Integer.MIN_VALUE;

    public int cls() { return Opcodes.cls(opcode); }

    /** True for ALU64/JMP forms, whose register operands are 64 bits wide (r, not w). */
    public boolean is64() { return cls() == Opcodes.ALU64 || cls() == Opcodes.JMP; }

    /** Memory access width in bytes for load/store/atomic forms. */
    public int sizeBytes() { return Opcodes.sizeBytes(opcode); }

    /**
     * True when {@code insn} has this opcode, the fields this form fixes hold their values, and every
     * field the shape does not use is zero (RFC 9669 reserved fields).
     */
    public boolean matches(Insn insn) {
        return insn.opcode() == opcode
                && (off != FREE ? insn.off() == off : shape.usesOff() || insn.off() == 0)
                && (imm != FREE ? insn.imm() == (int) imm : shape.usesImm() || insn.imm() == 0)
                && (src != FREE ? insn.src() == src : shape.usesSrc() || insn.src() == 0)
                && (shape.usesDst() || insn.dst() == 0);
    }

    /** The slot with opcode and fixed fields set; operands are filled in by the caller. */
    public Insn encode(int dst, int srcReg, int offset, int immediate) {
        return new Insn(opcode, dst, src == FREE ? srcReg : src, off == FREE ? offset : off,
                imm == FREE ? immediate : (int) imm);
    }
}
