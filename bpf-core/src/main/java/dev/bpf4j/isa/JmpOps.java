package dev.bpf4j.isa;

/**
 * The conditions of the RFC 9669 conditional jumps, written once. JMP compares 64-bit values, JMP32
 * their low 32 bits; an immediate operand is sign-extended to 64 bits (JMP) before comparing.
 */
public final class JmpOps {
    private JmpOps() {}

    public static boolean jeq(long a, long b) { return a == b; }
    public static boolean jne(long a, long b) { return a != b; }
    public static boolean jset(long a, long b) { return (a & b) != 0; }
    public static boolean jgt(long a, long b) { return Long.compareUnsigned(a, b) > 0; }
    public static boolean jge(long a, long b) { return Long.compareUnsigned(a, b) >= 0; }
    public static boolean jlt(long a, long b) { return Long.compareUnsigned(a, b) < 0; }
    public static boolean jle(long a, long b) { return Long.compareUnsigned(a, b) <= 0; }
    public static boolean jsgt(long a, long b) { return a > b; }
    public static boolean jsge(long a, long b) { return a >= b; }
    public static boolean jslt(long a, long b) { return a < b; }
    public static boolean jsle(long a, long b) { return a <= b; }

    public static boolean jeq32(long a, long b) { return (int) a == (int) b; }
    public static boolean jne32(long a, long b) { return (int) a != (int) b; }
    public static boolean jset32(long a, long b) { return ((int) a & (int) b) != 0; }
    public static boolean jgt32(long a, long b) { return Integer.compareUnsigned((int) a, (int) b) > 0; }
    public static boolean jge32(long a, long b) { return Integer.compareUnsigned((int) a, (int) b) >= 0; }
    public static boolean jlt32(long a, long b) { return Integer.compareUnsigned((int) a, (int) b) < 0; }
    public static boolean jle32(long a, long b) { return Integer.compareUnsigned((int) a, (int) b) <= 0; }
    public static boolean jsgt32(long a, long b) { return (int) a > (int) b; }
    public static boolean jsge32(long a, long b) { return (int) a >= (int) b; }
    public static boolean jslt32(long a, long b) { return (int) a < (int) b; }
    public static boolean jsle32(long a, long b) { return (int) a <= (int) b; }

    /** The comparison that holds exactly when {@code op} does not; -1 for JSET, which has none. */
    public static int negate(int op) {
        switch (op) {
            case Opcodes.JEQ: return Opcodes.JNE;
            case Opcodes.JNE: return Opcodes.JEQ;
            case Opcodes.JGT: return Opcodes.JLE;
            case Opcodes.JLE: return Opcodes.JGT;
            case Opcodes.JGE: return Opcodes.JLT;
            case Opcodes.JLT: return Opcodes.JGE;
            case Opcodes.JSGT: return Opcodes.JSLE;
            case Opcodes.JSLE: return Opcodes.JSGT;
            case Opcodes.JSGE: return Opcodes.JSLT;
            case Opcodes.JSLT: return Opcodes.JSGE;
            default: return -1;
        }
    }

    /** Whether the conditional jump {@code op} (an {@link Opcodes} jump operation) is taken for {@code a}, {@code b}. */
    public static boolean holds(int op, boolean jmp32, long a, long b) {
        switch (op) {
            case Opcodes.JEQ: return jmp32 ? jeq32(a, b) : jeq(a, b);
            case Opcodes.JNE: return jmp32 ? jne32(a, b) : jne(a, b);
            case Opcodes.JSET: return jmp32 ? jset32(a, b) : jset(a, b);
            case Opcodes.JGT: return jmp32 ? jgt32(a, b) : jgt(a, b);
            case Opcodes.JGE: return jmp32 ? jge32(a, b) : jge(a, b);
            case Opcodes.JLT: return jmp32 ? jlt32(a, b) : jlt(a, b);
            case Opcodes.JLE: return jmp32 ? jle32(a, b) : jle(a, b);
            case Opcodes.JSGT: return jmp32 ? jsgt32(a, b) : jsgt(a, b);
            case Opcodes.JSGE: return jmp32 ? jsge32(a, b) : jsge(a, b);
            case Opcodes.JSLT: return jmp32 ? jslt32(a, b) : jslt(a, b);
            case Opcodes.JSLE: return jmp32 ? jsle32(a, b) : jsle(a, b);
            default: throw new IllegalArgumentException("not a conditional jump: 0x" + Integer.toHexString(op));
        }
    }
}
