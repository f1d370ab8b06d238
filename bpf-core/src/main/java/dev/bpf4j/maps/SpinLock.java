package dev.bpf4j.maps;

import dev.bpf4j.runtime.NativeMemory;

/**
 * {@code struct bpf_spin_lock} in map values: a 4-byte word, 0 when free and 1 when held, taken with a
 * compare-and-swap so that programs ({@code bpf_spin_lock} helper) and the Java side
 * ({@code BPF_F_LOCK}) exclude each other. Value copies never overwrite the lock word and copies out
 * show it as zero, as the kernel's {@code copy_map_value} / {@code check_and_init_map_value}.
 */
public final class SpinLock {
    private SpinLock() {}

    /**
     * Longest wait for a lock before giving up. The kernel verifier proves every lock is released before
     * the program exits; bpf4j cannot, so a lock leaked by a program must not hang its next user.
     */
    public static final long TIMEOUT_NANOS = 1_000_000_000L;

    /** Takes the 4-byte lock at {@code address} (4-byte aligned); false when it stayed held for {@link #TIMEOUT_NANOS}. */
    public static boolean tryLock(long address) {
        long deadline = 0;
        while (!NativeMemory.casInt(address, 0, 1)) {
            if (deadline == 0) deadline = System.nanoTime() + TIMEOUT_NANOS;
            while (NativeMemory.getIntVolatile(address) != 0) {
                if (System.nanoTime() - deadline > 0) return false;
                Thread.onSpinWait();
            }
        }
        return true;
    }

    /** {@link #tryLock}, or {@code EBUSY} naming the lock when it is never released. */
    static void lock(long address) {
        if (!tryLock(address)) {
            throw new BpfMapException(Errno.EBUSY, String.format("bpf_spin_lock at 0x%x held for more than %d ms"
                    + " (a program exited without bpf_spin_unlock?)", address, TIMEOUT_NANOS / 1_000_000));
        }
    }

    public static void unlock(long address) { NativeMemory.getAndSetInt(address, 0); }

    /** Copies {@code size} bytes of {@code src} to the value at {@code dst}, leaving the lock word ({@code lockOff} >= 0) alone. */
    static void copyIn(long dst, byte[] src, int srcOff, int size, int lockOff) {
        if (lockOff < 0) {
            NativeMemory.write(dst, src, srcOff, size);
            return;
        }
        NativeMemory.write(dst, src, srcOff, lockOff);
        NativeMemory.write(dst + lockOff + 4, src, srcOff + lockOff + 4, size - lockOff - 4);
    }

    /** Copies the value at {@code src} out, the lock word shown as zero. */
    static void copyOut(long src, byte[] out, int outOff, int size, int lockOff) {
        NativeMemory.read(src, out, outOff, size);
        if (lockOff >= 0) java.util.Arrays.fill(out, outOff + lockOff, outOff + lockOff + 4, (byte) 0);
    }

    /** copy_map_value_locked into the value at {@code dst}: under its own lock. */
    static void copyInLocked(long dst, byte[] src, int srcOff, int size, int lockOff) {
        lock(dst + lockOff);
        try {
            copyIn(dst, src, srcOff, size, lockOff);
        } finally {
            unlock(dst + lockOff);
        }
    }

    /** copy_map_value_locked out of the value at {@code src}. */
    static void copyOutLocked(long src, byte[] out, int outOff, int size, int lockOff) {
        lock(src + lockOff);
        try {
            copyOut(src, out, outOff, size, lockOff);
        } finally {
            unlock(src + lockOff);
        }
    }
}
