package dev.bpf4j.stack;

import com.kenai.jffi.Library;
import dev.bpf4j.runtime.PtRegs;
import dev.bpf4j.unwind.CfiLookup;
import dev.bpf4j.unwind.ProcessCode;
import dev.bpf4j.unwind.SnapshotMemoryView;
import dev.bpf4j.unwind.Unwinder;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A stack built in memory for a test: a frame-pointer chain whose return addresses are real code
 * (offsets into libc functions), so the process's unwinder accepts them and the symbolizer names
 * them. The registers start at {@code ips[0]}; frame i lives at {@code BASE + 16 + 32 i}.
 */
record FakeStack(PtRegs regs, SnapshotMemoryView memory, long[] ips) {
    /**
     * The stack is a frame-pointer chain whatever libc's {@code .eh_frame} says of these pcs:
     * walk it with frame pointers only (the process's code still checks the return addresses).
     */
    static final Unwinder UNWINDER = new Unwinder(ProcessCode.global().jit(), ProcessCode.global()::isCode, CfiLookup.NONE);

    /** An address no thread stack uses, so the live-stack path can never read it by accident. */
    static final long BASE = 0x10_0000_0000L;

    /** Code addresses inside libc's {@code names} functions (each + {@code offset}). */
    static long[] libcIps(int offset, String... names) {
        long[] out = new long[names.length];
        for (int i = 0; i < names.length; i++) {
            long a = Library.getDefault().getSymbolAddress(names[i]);
            if (a == 0) throw new IllegalStateException("no libc symbol " + names[i]);
            out[i] = a + offset;
        }
        return out;
    }

    static FakeStack of(long... ips) {
        int frames = ips.length;
        ByteBuffer b = ByteBuffer.allocate(16 + 32 * frames + 16).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < frames; i++) {
            int bp = 16 + 32 * i;
            boolean last = i == frames - 1;
            b.putLong(bp, last ? 0 : BASE + bp + 32);   // saved rbp: the caller's frame
            b.putLong(bp + 8, last ? 0 : ips[i + 1]);    // return address into the caller
        }
        PtRegs regs = PtRegs.of(ips[0], BASE, BASE + 16).withArgs(1, 2, 3);
        return new FakeStack(regs, new SnapshotMemoryView(BASE, b.array()), ips.clone());
    }
}
