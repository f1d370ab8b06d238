package dev.bpf4j.jit.compiler;

/** The 32-bit word a checked access passes to the slow path: pc, write flag and size. */
public final class AccessDescriptor {
    private AccessDescriptor() {}

    public static final int WRITE_BIT = 0x10;
    public static final int SIZE_MASK = 0x0f;
    public static final int PC_SHIFT = 8;
    /** Largest pc a descriptor can carry. */
    public static final int MAX_PC = (1 << 23) - 1;

    public static int encode(int pc, int size, boolean write) {
        return (pc << PC_SHIFT) | (write ? WRITE_BIT : 0) | size;
    }

    public static int pc(long desc) { return (int) ((desc >>> PC_SHIFT) & MAX_PC); }
    public static int size(long desc) { return (int) (desc & SIZE_MASK); }
    public static boolean write(long desc) { return (desc & WRITE_BIT) != 0; }
}
