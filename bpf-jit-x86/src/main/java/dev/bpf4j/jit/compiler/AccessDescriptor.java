package dev.bpf4j.jit.compiler;

/**
 * The 32-bit word a checked access passes to the slow path: pc, write flag, size, and whether the
 * access may touch a live frame (only one the verifier typed as a stack pointer may: InsnAux).
 */
public final class AccessDescriptor {
    private AccessDescriptor() {}

    public static final int WRITE_BIT = 0x10;
    /** Set when the access must not land in a frame: the slow path checks the regions only. */
    public static final int NO_FRAMES_BIT = 0x20;
    public static final int SIZE_MASK = 0x0f;
    public static final int PC_SHIFT = 8;
    /** Largest pc a descriptor can carry. */
    public static final int MAX_PC = (1 << 23) - 1;

    public static int encode(int pc, int size, boolean write) {
        return (pc << PC_SHIFT) | (write ? WRITE_BIT : 0) | size;
    }

    /** As above; {@code frames} false adds {@link #NO_FRAMES_BIT}. */
    public static int encode(int pc, int size, boolean write, boolean frames) {
        return encode(pc, size, write) | (frames ? 0 : NO_FRAMES_BIT);
    }

    public static int pc(long desc) { return (int) ((desc >>> PC_SHIFT) & MAX_PC); }
    public static int size(long desc) { return (int) (desc & SIZE_MASK); }
    public static boolean write(long desc) { return (desc & WRITE_BIT) != 0; }
}
