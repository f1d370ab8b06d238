package dev.bpf4j.interp;

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
}
