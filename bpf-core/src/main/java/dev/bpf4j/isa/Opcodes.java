package dev.bpf4j.isa;

/**
 * The opcode byte of RFC 9669, split into its fields. Names follow the kernel's
 * {@code include/uapi/linux/bpf_common.h} and {@code bpf.h}.
 */
public final class Opcodes {
    private Opcodes() {}

    // Instruction classes (opcode & 0x07).
    public static final int LD = 0x00, LDX = 0x01, ST = 0x02, STX = 0x03,
            ALU = 0x04, JMP = 0x05, JMP32 = 0x06, ALU64 = 0x07;

    // Source operand (opcode & 0x08) for ALU and JMP classes.
    public static final int K = 0x00, X = 0x08;
    // Byte-swap direction for END (shares the source bit).
    public static final int TO_LE = 0x00, TO_BE = 0x08;

    // ALU operations (opcode & 0xf0).
    public static final int ADD = 0x00, SUB = 0x10, MUL = 0x20, DIV = 0x30, OR = 0x40, AND = 0x50,
            LSH = 0x60, RSH = 0x70, NEG = 0x80, MOD = 0x90, XOR = 0xa0, MOV = 0xb0, ARSH = 0xc0,
            END = 0xd0;

    // Jump operations (opcode & 0xf0).
    public static final int JA = 0x00, JEQ = 0x10, JGT = 0x20, JGE = 0x30, JSET = 0x40, JNE = 0x50,
            JSGT = 0x60, JSGE = 0x70, CALL = 0x80, EXIT = 0x90, JLT = 0xa0, JLE = 0xb0,
            JSLT = 0xc0, JSLE = 0xd0;

    // Load/store sizes (opcode & 0x18).
    public static final int W = 0x00, H = 0x08, B = 0x10, DW = 0x18;

    // Load/store modes (opcode & 0xe0).
    public static final int IMM = 0x00, ABS = 0x20, IND = 0x40, MEM = 0x60, MEMSX = 0x80, ATOMIC = 0xc0;

    // Atomic operations (imm of an ATOMIC store).
    public static final int FETCH = 0x01, XCHG = 0xe0 | FETCH, CMPXCHG = 0xf0 | FETCH;

    // src field of CALL.
    public static final int CALL_HELPER = 0, PSEUDO_CALL = 1, PSEUDO_KFUNC_CALL = 2;

    // src field of lddw (BPF_LD | BPF_IMM | BPF_DW).
    public static final int PSEUDO_IMM64 = 0, PSEUDO_MAP_FD = 1, PSEUDO_MAP_VALUE = 2, PSEUDO_BTF_ID = 3,
            PSEUDO_FUNC = 4, PSEUDO_MAP_IDX = 5, PSEUDO_MAP_IDX_VALUE = 6;

    /** The full opcode of lddw: {@code BPF_LD | BPF_IMM | BPF_DW}. */
    public static final int LDDW = LD | IMM | DW;

    public static int cls(int opcode) { return opcode & 0x07; }
    public static int source(int opcode) { return opcode & 0x08; }
    public static int op(int opcode) { return opcode & 0xf0; }
    public static int size(int opcode) { return opcode & 0x18; }
    public static int mode(int opcode) { return opcode & 0xe0; }

    public static boolean isAlu(int opcode) { int c = cls(opcode); return c == ALU || c == ALU64; }
    public static boolean isJmp(int opcode) { int c = cls(opcode); return c == JMP || c == JMP32; }
    public static boolean isLoadStore(int opcode) { return cls(opcode) <= STX; }

    /** Access width in bytes of a load/store size field. */
    public static int sizeBytes(int opcode) {
        switch (size(opcode)) {
            case W: return 4;
            case H: return 2;
            case B: return 1;
            default: return 8;
        }
    }
}
