package dev.bpf4j.helpers;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;
import dev.bpf4j.runtime.NativeForm;
import dev.bpf4j.runtime.NativeMemory;

import java.lang.ref.Cleaner;

/**
 * The few libc calls the helpers need, through jffi (not jnr-ffi: its 6-integer-argument binding is
 * broken, see DESIGN.md, and {@code process_vm_readv} has six). Every call degrades to a documented
 * fallback when a symbol is missing. x86-64 Linux syscall numbers.
 */
final class Libc {
    private Libc() {}

    private static final long SYS_GETTID = 186;
    private static final int PR_GET_NAME = 16;
    private static final int CLOCK_BOOTTIME = 7;

    private static final Invoker INVOKER = invoker();
    private static final long GETPID = symbol("getpid");
    private static final long SYSCALL = symbol("syscall");
    private static final long PRCTL = symbol("prctl");
    private static final long CLOCK_GETTIME = symbol("clock_gettime");
    private static final long PROCESS_VM_READV = symbol("process_vm_readv");

    private static final Cleaner CLEANER = Cleaner.create();
    /** 64 bytes of per-thread native scratch (iovecs, timespec, comm), freed when the thread's entry is collected. */
    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);
    private static final ThreadLocal<long[]> IDS = ThreadLocal.withInitial(() -> new long[] {-1});

    private static final class Scratch {
        final long address = NativeMemory.allocate(64);
        Scratch() {
            long a = address;
            CLEANER.register(this, () -> NativeMemory.free(a));
        }
    }

    /** The call context of {@code args} 64-bit integer arguments; null when jffi cannot load (every call then falls back). */
    static CallContext ctx(Type ret, int args) {
        try {
            Type[] p = new Type[args];
            java.util.Arrays.fill(p, Type.SINT64);
            return CallContext.getCallContext(ret, p, CallingConvention.DEFAULT, false);
        } catch (Throwable t) {
            return null;
        }
    }

    private static Invoker invoker() {
        try {
            return Invoker.getInstance();
        } catch (Throwable t) {
            return null;
        }
    }

    private static final CallContext L0 = ctx(Type.SINT64, 0);
    private static final CallContext L1 = ctx(Type.SINT64, 1);
    private static final CallContext I2 = ctx(Type.SINT, 2);
    private static final CallContext I5 = ctx(Type.SINT, 5);
    private static final CallContext L6 = ctx(Type.SINT64, 6);

    private static long symbol(String name) {
        if (INVOKER == null) return 0;
        try {
            return Library.getDefault().getSymbolAddress(name);
        } catch (Throwable t) {
            return 0;
        }
    }

    private static final long PID = GETPID == 0 ? ProcessHandle.current().pid() : (int) INVOKER.invokeN0(L0, GETPID);

    static long getpid() { return PID; }

    /** The calling thread's kernel tid (cached: a thread keeps its tid). */
    static long gettid() {
        long[] id = IDS.get();
        if (id[0] < 0) id[0] = SYSCALL == 0 ? getpid() : INVOKER.invokeN1(L1, SYSCALL, SYS_GETTID);
        return id[0];
    }

    /** The calling thread's {@code comm} (TASK_COMM_LEN 16 bytes, NUL-terminated), from {@code prctl(PR_GET_NAME)}. */
    static byte[] comm() {
        byte[] out = new byte[16];
        if (PRCTL != 0) {
            long buf = SCRATCH.get().address;
            NativeMemory.setMemory(buf, 16, (byte) 0);
            if (INVOKER.invokeN5(I5, PRCTL, PR_GET_NAME, buf, 0, 0, 0) == 0) {
                NativeMemory.read(buf, out, 0, 16);
                out[15] = 0;
                return out;
            }
        }
        byte[] name = Thread.currentThread().getName().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        System.arraycopy(name, 0, out, 0, Math.min(15, name.length));
        return out;
    }

    static final int CLOCK_MONOTONIC = 1;

    /**
     * {@code clock_gettime(clockId)} in ns as native code computes it, or null where {@code
     * clock_gettime} is missing or refuses that clock (then the helper's body falls back to Java).
     */
    static NativeForm.ClockNs clockForm(int clockId) {
        if (CLOCK_GETTIME == 0) return null;
        return INVOKER.invokeN2(I2, CLOCK_GETTIME, clockId, SCRATCH.get().address) == 0 ? new NativeForm.ClockNs(CLOCK_GETTIME, clockId) : null;
    }

    static NativeForm.ClockNs bootTimeForm() { return clockForm(CLOCK_BOOTTIME); }

    private static final NativeForm.PidTgid PID_TGID_FORM = GETPID == 0 || SYSCALL == 0 ? null : pidTgidForm();
    private static final NativeForm.PrandomU32 PRANDOM_FORM = SYSCALL == 0 ? null : prandomForm();

    /** {@link #getpid()} {@code << 32 |} {@link #gettid()} as native code computes it, or null where libc lacks a part. */
    static NativeForm.PidTgid pidTgid() { return PID_TGID_FORM; }

    /** {@code bpf_get_prandom_u32} as native code draws it, or null where libc lacks a part. */
    static NativeForm.PrandomU32 prandom() { return PRANDOM_FORM; }

    private static NativeForm.PidTgid pidTgidForm() {
        NativeForm.ThreadSlot slot = threadSlot();
        return slot == null ? null : new NativeForm.PidTgid(slot, GETPID, SYSCALL);
    }

    private static NativeForm.PrandomU32 prandomForm() {
        NativeForm.ThreadSlot slot = threadSlot();
        return slot == null ? null : new NativeForm.PrandomU32(slot, SYSCALL);
    }

    /** A new thread-specific slot of 8 bytes, or null where libc lacks a part or refuses a key. */
    private static NativeForm.ThreadSlot threadSlot() {
        long get = symbol("pthread_getspecific"), set = symbol("pthread_setspecific"), create = symbol("pthread_key_create");
        long malloc = symbol("malloc"), free = symbol("free");
        if (get == 0 || set == 0 || create == 0 || malloc == 0 || free == 0) return null;
        long key = NativeMemory.allocate(8);
        try {
            // one key per form for the process, never deleted: free() releases a thread's 8 bytes when it exits
            if (INVOKER.invokeN2(I2, create, key, free) != 0) return null;
            return new NativeForm.ThreadSlot(get, set, NativeMemory.getInt(key), malloc);
        } finally {
            NativeMemory.free(key);
        }
    }

    /** {@code clock_gettime(CLOCK_BOOTTIME)} in ns; {@link System#nanoTime()} (CLOCK_MONOTONIC) if unavailable. */
    static long bootTimeNs() {
        if (CLOCK_GETTIME == 0) return System.nanoTime();
        long ts = SCRATCH.get().address;
        if ((int) INVOKER.invokeN2(I2, CLOCK_GETTIME, CLOCK_BOOTTIME, ts) != 0) return System.nanoTime();
        return NativeMemory.getLong(ts) * 1_000_000_000L + NativeMemory.getLong(ts + 8);
    }

    /** {@code clock_gettime(clockId)} in ns; {@code fallback} when libc or the clock is unavailable. */
    static long clockNs(int clockId, java.util.function.LongSupplier fallback) {
        if (CLOCK_GETTIME == 0) return fallback.getAsLong();
        long ts = SCRATCH.get().address;
        if ((int) INVOKER.invokeN2(I2, CLOCK_GETTIME, clockId, ts) != 0) return fallback.getAsLong();
        return NativeMemory.getLong(ts) * 1_000_000_000L + NativeMemory.getLong(ts + 8);
    }

    static boolean canReadProcessMemory() { return PROCESS_VM_READV != 0; }

    /**
     * Copies {@code size} bytes from {@code src} to {@code dst} through {@code process_vm_readv} on our own
     * pid: the kernel performs the read and reports an unmapped or unreadable source as an error
     * ({@code EFAULT}) instead of faulting, so any address is safe to try. True when all bytes were copied.
     */
    static boolean readProcessMemory(long dst, long src, long size) {
        if (size == 0) return true;
        if (PROCESS_VM_READV == 0) return false;
        long iov = SCRATCH.get().address;
        NativeMemory.putLong(iov, dst);
        NativeMemory.putLong(iov + 8, size);
        NativeMemory.putLong(iov + 16, src);
        NativeMemory.putLong(iov + 24, size);
        long n = INVOKER.invokeN6(L6, PROCESS_VM_READV, getpid(), iov, 1, iov + 16, 1, 0);
        return n == size;
    }
}
