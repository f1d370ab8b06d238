package dev.bpf4j.runtime;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The x86-64 {@code struct pt_regs} (arch/x86/include/asm/ptrace.h): the register state of a
 * probe site. A kprobe-style program reads it as its context ({@code PT_REGS_PARM1(ctx)} is
 * {@code di} at offset 112), and {@code bpf_get_stackid}/{@code bpf_get_stack} start their unwind
 * from {@code ip}, {@code sp} and {@code bp}. Components are in the kernel's field order; the
 * native layout is {@value #SIZE} bytes of little-endian u64s at the {@code OFF_*} offsets.
 */
public record PtRegs(long r15, long r14, long r13, long r12, long bp, long bx, long r11, long r10,
                     long r9, long r8, long ax, long cx, long dx, long si, long di, long origAx,
                     long ip, long cs, long flags, long sp, long ss) {
    /** {@code sizeof(struct pt_regs)} on x86-64. */
    public static final int SIZE = 168;
    public static final int OFF_R15 = 0, OFF_R14 = 8, OFF_R13 = 16, OFF_R12 = 24, OFF_BP = 32, OFF_BX = 40,
            OFF_R11 = 48, OFF_R10 = 56, OFF_R9 = 64, OFF_R8 = 72, OFF_AX = 80, OFF_CX = 88, OFF_DX = 96,
            OFF_SI = 104, OFF_DI = 112, OFF_ORIG_AX = 120, OFF_IP = 128, OFF_CS = 136, OFF_FLAGS = 144,
            OFF_SP = 152, OFF_SS = 160;

    /** User-mode selectors a 64-bit process runs with ({@code __USER_CS}, {@code __USER_DS}); informational. */
    public static final long USER_CS = 0x33, USER_SS = 0x2b;

    /** Registers of a probe site that only has its unwind start (all else zero). */
    public static PtRegs of(long ip, long sp, long bp) {
        return new PtRegs(0, 0, 0, 0, bp, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ip, USER_CS, 0, sp, USER_SS);
    }

    /**
     * The same registers with the SysV argument registers set ({@code di, si, dx, cx, r8, r9}:
     * what {@code PT_REGS_PARM1..6} read); fewer than six arguments leave the rest unchanged.
     */
    public PtRegs withArgs(long... args) {
        if (args.length > 6) throw new IllegalArgumentException("x86-64 passes at most 6 arguments in registers, got " + args.length);
        long[] a = {di, si, dx, cx, r8, r9};
        System.arraycopy(args, 0, a, 0, args.length);
        return new PtRegs(r15, r14, r13, r12, bp, bx, r11, r10, a[5], a[4], ax, a[3], a[2], a[1], a[0], origAx,
                ip, cs, flags, sp, ss);
    }

    /** The same registers with {@code ax} (the return value, {@code PT_REGS_RC}) set. */
    public PtRegs withAx(long value) {
        return new PtRegs(r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, value, cx, dx, si, di, origAx,
                ip, cs, flags, sp, ss);
    }

    /** Argument {@code i} (0-5) as {@code PT_REGS_PARM(i+1)} reads it. */
    public long arg(int i) {
        switch (i) {
            case 0: return di;
            case 1: return si;
            case 2: return dx;
            case 3: return cx;
            case 4: return r8;
            case 5: return r9;
            default: throw new IllegalArgumentException("argument registers are 0-5, not " + i);
        }
    }

    private long[] fields() {
        return new long[] {r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di, origAx, ip, cs, flags, sp, ss};
    }

    private static PtRegs of(long[] f) {
        return new PtRegs(f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11], f[12], f[13],
                f[14], f[15], f[16], f[17], f[18], f[19], f[20]);
    }

    /** Writes the native layout to {@code SIZE} bytes at {@code address}. */
    public void write(long address) {
        long[] f = fields();
        for (int i = 0; i < f.length; i++) NativeMemory.putLong(address + 8L * i, f[i]);
    }

    /** Reads the native layout from {@code SIZE} bytes at {@code address}. */
    public static PtRegs read(long address) {
        long[] f = new long[SIZE / 8];
        for (int i = 0; i < f.length; i++) f[i] = NativeMemory.getLong(address + 8L * i);
        return of(f);
    }

    /** The native layout as bytes. */
    public byte[] toBytes() {
        ByteBuffer b = ByteBuffer.allocate(SIZE).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : fields()) b.putLong(v);
        return b.array();
    }

    /** Parses {@code SIZE} bytes of native layout starting at {@code offset}. */
    public static PtRegs fromBytes(byte[] bytes, int offset) {
        if (offset < 0 || bytes.length - offset < SIZE) {
            throw new IllegalArgumentException("struct pt_regs needs " + SIZE + " bytes at offset " + offset + " of " + bytes.length);
        }
        ByteBuffer b = ByteBuffer.wrap(bytes, offset, SIZE).order(ByteOrder.LITTLE_ENDIAN);
        long[] f = new long[SIZE / 8];
        for (int i = 0; i < f.length; i++) f[i] = b.getLong();
        return of(f);
    }

    /** Copies into fresh native memory, a kprobe context for a run (free with {@link NativeMemory#free}). */
    public long allocate() {
        long a = NativeMemory.allocate(SIZE);
        write(a);
        return a;
    }

    @Override public String toString() {
        return String.format("PtRegs[ip=0x%x sp=0x%x bp=0x%x di=0x%x si=0x%x dx=0x%x cx=0x%x r8=0x%x r9=0x%x ax=0x%x]",
                ip, sp, bp, di, si, dx, cx, r8, r9, ax);
    }
}
