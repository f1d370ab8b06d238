package dev.bpf4j.runtime;

import dev.bpf4j.isa.AluOps;

import dev.bpf4j.isa.Opcodes;

/**
 * BPF_ATOMIC (RFC 9669 section 5.3) on native memory, truly atomic across threads. The caller has
 * already checked the address. Each method returns the old value as the program sees it (32-bit
 * forms zero-extended); the caller decides which register receives it.
 */
public final class AtomicOps {
    private AtomicOps() {}

    static final int ADD = Opcodes.ADD, OR = Opcodes.OR, AND = Opcodes.AND, XOR = Opcodes.XOR;

    /** add/or/and/xor/xchg on a 64-bit word; returns the old value. */
    public static long rmw64(long addr, int imm, long src) {
        switch (imm & ~Opcodes.FETCH) {
            case ADD: return NativeMemory.getAndAddLong(addr, src);
            case OR: { long old; do { old = NativeMemory.getLongVolatile(addr); } while (!NativeMemory.casLong(addr, old, old | src)); return old; }
            case AND: { long old; do { old = NativeMemory.getLongVolatile(addr); } while (!NativeMemory.casLong(addr, old, old & src)); return old; }
            case XOR: { long old; do { old = NativeMemory.getLongVolatile(addr); } while (!NativeMemory.casLong(addr, old, old ^ src)); return old; }
            default:
                if (imm == Opcodes.XCHG) return NativeMemory.getAndSetLong(addr, src);
                throw new IllegalArgumentException("atomic op 0x" + Integer.toHexString(imm));
        }
    }

    /** add/or/and/xor/xchg on a 32-bit word; returns the old value zero-extended. */
    public static long rmw32(long addr, int imm, long src) {
        int s = (int) src;
        int old;
        switch (imm & ~Opcodes.FETCH) {
            case ADD: old = NativeMemory.getAndAddInt(addr, s); break;
            case OR: do { old = NativeMemory.getIntVolatile(addr); } while (!NativeMemory.casInt(addr, old, old | s)); break;
            case AND: do { old = NativeMemory.getIntVolatile(addr); } while (!NativeMemory.casInt(addr, old, old & s)); break;
            case XOR: do { old = NativeMemory.getIntVolatile(addr); } while (!NativeMemory.casInt(addr, old, old ^ s)); break;
            default:
                if (imm != Opcodes.XCHG) throw new IllegalArgumentException("atomic op 0x" + Integer.toHexString(imm));
                old = NativeMemory.getAndSetInt(addr, s);
        }
        return old & AluOps.MASK32;
    }

    /** cmpxchg: stores {@code src} when memory equals {@code expected}; returns the old value. */
    public static long cmpxchg64(long addr, long expected, long src) {
        for (;;) {
            long old = NativeMemory.getLongVolatile(addr);
            if (old != expected) return old;
            if (NativeMemory.casLong(addr, old, src)) return old;
        }
    }

    /** 32-bit cmpxchg: compares the low 32 bits of r0; returns the old value zero-extended. */
    public static long cmpxchg32(long addr, long expected, long src) {
        for (;;) {
            int old = NativeMemory.getIntVolatile(addr);
            if (old != (int) expected) return old & AluOps.MASK32;
            if (NativeMemory.casInt(addr, old, (int) src)) return old & AluOps.MASK32;
        }
    }
}
