package dev.bpf4j.maps;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.LastError;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;
import dev.bpf4j.runtime.NativeMemory;

import java.util.Optional;

/**
 * A real kernel map through the bpf(2) syscall, as the oracle of the differential tests. Results are
 * 0 or a negative errno, like the map API's program side.
 */
final class KernelMap implements AutoCloseable {
    private static final long SYS_BPF = 321;
    private static final int MAP_CREATE = 0, LOOKUP = 1, UPDATE = 2, DELETE = 3, GET_NEXT_KEY = 4, LOOKUP_AND_DELETE = 21;
    private static final CallContext SYSCALL4 = CallContext.getCallContext(Type.SINT64,
            new Type[] {Type.SINT64, Type.SINT64, Type.SINT64, Type.SINT64}, CallingConvention.DEFAULT, true);
    private static final CallContext CLOSE = CallContext.getCallContext(Type.SINT,
            new Type[] {Type.SINT}, CallingConvention.DEFAULT, false);
    private static final long SYSCALL_FN = Library.getDefault().getSymbolAddress("syscall");
    private static final long CLOSE_FN = Library.getDefault().getSymbolAddress("close");

    final MapDefinition def;
    private final int fd;
    private final long attr = NativeMemory.allocate(128);
    private final long key, value;
    final int valueBytes;

    private KernelMap(MapDefinition def, int fd) {
        this.def = def;
        this.fd = fd;
        this.valueBytes = def.type().isPercpu() ? def.valueStride() * Cpus.possible() : def.valueSize();
        this.key = NativeMemory.allocate(Math.max(8, def.keySize()));
        this.value = NativeMemory.allocate(Math.max(8, valueBytes));
    }

    /** The kernel map, or empty (with the reason printed) when bpf() is not allowed here. */
    static Optional<KernelMap> create(MapDefinition def) {
        long a = NativeMemory.allocate(128);
        Optional<KernelMap> inner = Optional.empty();
        try {
            if (def.innerMap() != null) { // the kernel's template is a live map, closed again once the outer exists
                inner = create(def.innerMap());
                if (inner.isEmpty()) return Optional.empty();
                NativeMemory.putInt(a + 20, inner.get().fd());
            }
            NativeMemory.putInt(a, def.type().id());
            NativeMemory.putInt(a + 4, def.keySize());
            NativeMemory.putInt(a + 8, def.valueSize());
            NativeMemory.putInt(a + 12, def.maxEntries());
            NativeMemory.putInt(a + 16, def.flags());
            long fd = bpf(MAP_CREATE, a);
            if (fd < 0) return Optional.empty();
            return Optional.of(new KernelMap(def, (int) fd));
        } finally {
            inner.ifPresent(KernelMap::close);
            NativeMemory.free(a);
        }
    }

    /** The raw result of creating {@code def} in the kernel: a negative errno, or 0 (the map is closed again). */
    static int createResult(MapDefinition def) {
        Optional<KernelMap> m = create(def);
        m.ifPresent(KernelMap::close);
        return m.isPresent() ? 0 : lastCreateErrno;
    }

    private static int lastCreateErrno;

    static long bpf(int cmd, long attr) {
        long r = Invoker.getInstance().invokeN4(SYSCALL4, SYSCALL_FN, SYS_BPF, cmd, attr, 128);
        if (r < 0) {
            r = -LastError.getInstance().get();
            if (cmd == MAP_CREATE) lastCreateErrno = (int) r;
        }
        return r;
    }

    private long elem(int cmd, byte[] k, long valuePtr, long flags) {
        NativeMemory.setMemory(attr, 128, (byte) 0);
        NativeMemory.putInt(attr, fd);
        if (k != null) NativeMemory.write(key, k, 0, k.length);
        NativeMemory.putLong(attr + 8, k == null || def.keySize() == 0 ? 0 : key);
        NativeMemory.putLong(attr + 16, valuePtr);
        NativeMemory.putLong(attr + 24, flags);
        return bpf(cmd, attr);
    }

    int update(byte[] k, byte[] v, long flags) {
        NativeMemory.write(value, v, 0, v.length);
        return (int) elem(UPDATE, k, value, flags);
    }

    /** The value, or null with {@code err[0]} set to the negative errno. */
    byte[] lookup(byte[] k, int[] err) {
        err[0] = (int) elem(LOOKUP, k, value, 0);
        return err[0] == 0 ? NativeMemory.read(value, valueBytes) : null;
    }

    byte[] lookupAndDelete(byte[] k, int[] err) {
        err[0] = (int) elem(LOOKUP_AND_DELETE, k, value, 0);
        return err[0] == 0 ? NativeMemory.read(value, valueBytes) : null;
    }

    int fd() { return fd; }

    /** BPF_MAP_FREEZE: no more syscall writes (what libbpf does to .rodata). */
    int freeze() {
        NativeMemory.setMemory(attr, 128, (byte) 0);
        NativeMemory.putInt(attr, fd);
        return (int) bpf(22, attr);
    }

    int delete(byte[] k) { return (int) elem(DELETE, k, 0, 0); }

    byte[] nextKey(byte[] k, int[] err) {
        long next = NativeMemory.allocate(Math.max(8, def.keySize()));
        try {
            err[0] = (int) elem(GET_NEXT_KEY, k, next, 0);
            return err[0] == 0 ? NativeMemory.read(next, def.keySize()) : null;
        } finally {
            NativeMemory.free(next);
        }
    }

    static void close(int fd) { Invoker.getInstance().invokeI1(CLOSE, CLOSE_FN, fd); }

    @Override public void close() {
        close(fd);
        NativeMemory.free(attr);
        NativeMemory.free(key);
        NativeMemory.free(value);
    }
}
