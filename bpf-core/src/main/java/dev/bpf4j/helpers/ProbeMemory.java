package dev.bpf4j.helpers;

import dev.bpf4j.maps.Errno;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.NativeMemory;

/**
 * Fault-free reads of memory a program names but may not own ({@code bpf_probe_read*}, {@code %s}
 * arguments). A read never crashes the JVM: a source range that lies inside a region or live stack frame
 * of the run ({@link HelperCall#accessible}) is copied directly; any other range is read, in
 * {@link Mode#PROCESS} mode, by the kernel through {@code process_vm_readv} on our own pid, which
 * returns {@code EFAULT} for unmapped or unreadable pages instead of faulting. In
 * {@link Mode#REGIONS_ONLY} mode such reads fail. A failed read is {@code -EFAULT}.
 */
public final class ProbeMemory {
    /** What a probe read may reach beyond the run's regions and frames. */
    public enum Mode {
        /** Only the run's own regions and live stack frames. */
        REGIONS_ONLY,
        /** Any readable memory of this process, checked by the kernel ({@code process_vm_readv}). */
        PROCESS
    }

    private static final int PAGE = 4096;
    private final Mode mode;

    public ProbeMemory(Mode mode) { this.mode = mode; }

    public Mode mode() { return mode; }

    /** Copies {@code size} bytes from {@code src} to {@code dst} (already checked writable); false on fault. */
    public boolean copy(HelperCall call, long dst, long src, long size) { return copy(call, 0, dst, src, size); }

    /** As above, {@code src} being argument register {@code srcReg} (1-5; 0 when it is no argument, e.g. a %s pointer). */
    public boolean copy(HelperCall call, int srcReg, long dst, long src, long size) {
        if (size == 0) return true;
        if (accessible(call, srcReg, src, size)) {
            copyForward(dst, src, size);
            return true;
        }
        return mode == Mode.PROCESS && Libc.readProcessMemory(dst, src, size);
    }

    private static boolean accessible(HelperCall call, int srcReg, long src, long size) {
        return srcReg == 0 ? call.accessible(src, size, false) : call.accessible(srcReg, src, size, false);
    }

    /**
     * Linux's copy_from_kernel_nofault order: u64 words from the start, then a u32, u16 and u8 tail, each
     * read before it is written. Where dst overlaps src the result is what Linux gives (a memmove would not be).
     */
    static void copyForward(long dst, long src, long size) {
        long n = 0;
        for (; size - n >= 8; n += 8) NativeMemory.putLong(dst + n, NativeMemory.getLong(src + n));
        for (; size - n >= 4; n += 4) NativeMemory.putInt(dst + n, NativeMemory.getInt(src + n));
        for (; size - n >= 2; n += 2) NativeMemory.putShort(dst + n, NativeMemory.getShort(src + n));
        for (; size - n >= 1; n += 1) NativeMemory.putByte(dst + n, NativeMemory.getByte(src + n));
    }

    /**
     * Whether Linux's {@code copy_from_kernel_nofault_allowed} would let a {@code _kernel} read start at
     * {@code src}: never below {@link #MMAP_MIN_ADDR} (NULL and small numbers: {@code -ERANGE}) nor at a
     * non-canonical address. (Linux refuses every user address; bpf4j's "kernel" memory is this process's,
     * so only what can never be memory on either side is refused this way.)
     */
    static boolean kernelReadAllowed(long src) {
        boolean canonical = (src >> 47) == 0 || (src >> 47) == -1;
        return Long.compareUnsigned(src, MMAP_MIN_ADDR) >= 0 && canonical;
    }

    /** Linux's default {@code vm.mmap_min_addr}: nothing is ever mapped below it (the JIT's native form checks the same). */
    static final long MMAP_MIN_ADDR = dev.bpf4j.runtime.NativeForm.ProbeRead.MMAP_MIN_ADDR;

    /** {@code bpf_probe_read*}: 0, or {@code -EFAULT} with {@code dst} zero-filled. */
    public int read(HelperCall call, long dst, long size, long src) { return read(call, 0, dst, size, src); }

    /** As above, {@code src} being argument register {@code srcReg}. */
    public int read(HelperCall call, int srcReg, long dst, long size, long src) {
        if (copy(call, srcReg, dst, src, size)) return 0;
        NativeMemory.setMemory(dst, size, (byte) 0);
        return -Errno.EFAULT;
    }

    /** {@code bpf_probe_read_kernel}: as {@link #read}, but {@code -ERANGE} (dst zero-filled) for a source Linux refuses, whatever the size. */
    public int readKernel(HelperCall call, int srcReg, long dst, long size, long src) {
        if (kernelReadAllowed(src)) return read(call, srcReg, dst, size, src);
        NativeMemory.setMemory(dst, size, (byte) 0);
        return -Errno.ERANGE;
    }

    /** {@code bpf_probe_read_kernel_str}: as {@link #readStr}, but {@code -ERANGE} for a source Linux refuses (size 0 still gives 0). */
    public int readKernelStr(HelperCall call, int srcReg, long dst, long size, long src) {
        if (size == 0 || kernelReadAllowed(src)) return readStr(call, srcReg, dst, size, src);
        NativeMemory.setMemory(dst, size, (byte) 0);
        return -Errno.ERANGE;
    }

    /**
     * {@code bpf_probe_read*_str}: reads at most {@code size} bytes up to a NUL, writes at most {@code size - 1} string bytes and
     * its NUL; returns the length including the NUL ({@code size} when truncated), 0 for size 0, or
     * {@code -EFAULT} with {@code dst} zero-filled. Reads page by page so a string ending just before an
     * unreadable page is still read.
     */
    public int readStr(HelperCall call, long dst, long size, long src) { return readStr(call, 0, dst, size, src); }

    /** As above, {@code src} being argument register {@code srcReg}. */
    public int readStr(HelperCall call, int srcReg, long dst, long size, long src) {
        if (size == 0) return 0;
        if (accessible(call, srcReg, src, size)) {
            // strncpy_from_kernel_nofault: byte after byte, each read after the previous one is written (overlaps as in Linux)
            for (long n = 0; n < size; n++) {
                byte b = NativeMemory.getByte(src + n);
                NativeMemory.putByte(dst + n, b);
                if (b == 0) return (int) (n + 1);
            }
            NativeMemory.putByte(dst + size - 1, (byte) 0);
            return (int) size;
        }
        long n = 0;
        // like strncpy_from_kernel_nofault: read byte after byte until NUL or size bytes (the last becomes NUL).
        // Each chunk goes through a scratch page first: dst gets the string and its NUL, never the bytes after
        // it (how many those would be depends on where src's page ends, an address the program cannot see).
        long page = NativeMemory.allocate(PAGE);
        try {
            while (n < size) {
                long chunk = Math.min(size - n, PAGE - ((src + n) & (PAGE - 1)));
                if (!copyChunk(call, srcReg, page, src + n, chunk)) {
                    NativeMemory.setMemory(dst, size, (byte) 0);
                    return -Errno.EFAULT;
                }
                for (long k = 0; k < chunk; k++) {
                    byte b = NativeMemory.getByte(page + k);
                    NativeMemory.putByte(dst + n + k, b);
                    if (b == 0) return (int) (n + k + 1);
                }
                n += chunk;
            }
            NativeMemory.putByte(dst + size - 1, (byte) 0);
            return (int) size;
        } finally {
            NativeMemory.free(page);
        }
    }

    /** A chunk inside one page: direct if accessible, else byte by byte so a region ending mid-page works. */
    private boolean copyChunk(HelperCall call, int srcReg, long dst, long src, long chunk) {
        if (copy(call, srcReg, dst, src, chunk)) return true;
        for (long k = 0; k < chunk; k++) {
            if (!copy(call, srcReg, dst + k, src + k, 1)) return false;
            if (NativeMemory.getByte(dst + k) == 0) return true;
        }
        return true;
    }

    /** A Java string read from {@code src} (at most {@code max} bytes, stopping at NUL), or null on fault. */
    public byte[] readString(HelperCall call, long src, int max) {
        if (max <= 0) return new byte[0];
        long buf = NativeMemory.allocate(max + 1L);
        try {
            int n = readStr(call, buf, max + 1L, src);
            return n < 0 ? null : NativeMemory.read(buf, n - 1);
        } finally {
            NativeMemory.free(buf);
        }
    }

    /** Exactly {@code n} bytes from {@code src}, or null on fault. */
    public byte[] readBytes(HelperCall call, long src, int n) {
        long buf = NativeMemory.allocate(Math.max(1, n));
        try {
            return copy(call, buf, src, n) ? NativeMemory.read(buf, n) : null;
        } finally {
            NativeMemory.free(buf);
        }
    }
}
