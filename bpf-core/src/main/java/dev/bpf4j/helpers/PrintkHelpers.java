package dev.bpf4j.helpers;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.maps.Errno;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.NativeMemory;

import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * {@code bpf_trace_printk} (to a Java sink instead of the trace pipe) and {@code bpf_snprintf}, both in
 * the {@link Bprintf} dialect. Results follow the kernel: trace_printk returns the formatted length,
 * snprintf the length plus its NUL (even when truncated to {@code str_size}); a bad format is
 * {@code -EINVAL}.
 */
final class PrintkHelpers {
    private PrintkHelpers() {}

    /** Longest snprintf format scanned for its NUL (the kernel's is a constant string in a read-only map). */
    static final int MAX_FMT = 1 << 16;

    static void register(HelperRegistry.Builder b, ProbeMemory mem, Consumer<String> sink) {
        b.add(HelperIds.TRACE_PRINTK, "bpf_trace_printk",
                (call, r1, r2, r3, r4, r5) -> tracePrintk(call, mem, sink, "bpf_trace_printk", r1, r2, new long[] {r3, r4, r5}));
        // bpf_trace_vprintk(fmt, u32 fmt_size, const void *args, u32 data_len): bpf_printk with more than three arguments
        b.add(HelperIds.TRACE_VPRINTK, "bpf_trace_vprintk", (call, r1, r2, r3, r4, r5) -> {
            long dataLen = r4 & 0xffffffffL;
            if (dataLen % 8 != 0 || dataLen > Bprintf.MAX_VARARGS * 8L || (dataLen != 0 && r3 == 0)) return -Errno.EINVAL;
            call.checkArgument(3, "bpf_trace_vprintk args (r3)", r3, dataLen, false);
            long[] args = new long[(int) (dataLen / 8)];
            for (int i = 0; i < args.length; i++) args[i] = NativeMemory.getLong(r3 + 8L * i);
            return tracePrintk(call, mem, sink, "bpf_trace_vprintk", r1, r2, args);
        });
        b.add(HelperIds.SNPRINTF, "bpf_snprintf", (call, r1, r2, r3, r4, r5) -> {
            long strSize = r2 & 0xffffffffL, dataLen = r5 & 0xffffffffL;
            if (dataLen % 8 != 0 || dataLen > Bprintf.MAX_VARARGS * 8L || (dataLen != 0 && r4 == 0)) return -Errno.EINVAL;
            call.checkArgument(1, "bpf_snprintf str (r1)", r1, strSize, true);
            call.checkArgument(4, "bpf_snprintf data (r4)", r4, dataLen, false);
            byte[] fmt = constString(call, r3);
            long[] args = new long[(int) (dataLen / 8)];
            for (int i = 0; i < args.length; i++) args[i] = NativeMemory.getLong(r4 + 8L * i);
            byte[] text;
            try {
                text = Bprintf.format(fmt, args, memory(call, mem));
            } catch (Bprintf.FormatError e) {
                return -e.errno;
            }
            if (strSize > 0) {
                int n = (int) Math.min(text.length, strSize - 1);
                NativeMemory.write(r1, text, 0, n);
                NativeMemory.putByte(r1 + n, (byte) 0);
            }
            return text.length + 1L;
        });
    }

    /** Formats fmt (NUL-terminated within fmt_size) with args to the sink; returns the formatted length or -errno. */
    private static long tracePrintk(HelperCall call, ProbeMemory mem, Consumer<String> sink, String helper, long fmtAddr, long fmtSizeArg,
                                    long[] args) {
        long fmtSize = fmtSizeArg & 0xffffffffL;
        call.checkArgument(1, helper + " fmt (r1)", fmtAddr, fmtSize, false);
        byte[] fmt = NativeMemory.read(fmtAddr, (int) Math.min(fmtSize, Integer.MAX_VALUE - 8));
        int nul = indexOfNul(fmt);
        if (nul < 0) return -Errno.EINVAL; // the format must end with NUL within fmt_size
        byte[] text;
        try {
            text = Bprintf.format(java.util.Arrays.copyOf(fmt, nul), args, memory(call, mem));
        } catch (Bprintf.FormatError e) {
            return -e.errno;
        }
        int shown = Math.min(text.length, Bprintf.MAX_BUF - 1);
        sink.accept(new String(text, 0, shown, StandardCharsets.UTF_8));
        return text.length;
    }

    /** The NUL-terminated format at {@code fmt}: every byte up to the NUL must be readable by the program. */
    private static byte[] constString(HelperCall call, long fmt) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < MAX_FMT; i++) {
            if (!call.accessible(3, fmt + i, 1, false)) {
                throw call.badArgument(String.format("bpf_snprintf fmt (r3): byte %d of the string at 0x%x is not readable"
                        + " by this program (no NUL before it)", i, fmt));
            }
            byte c = NativeMemory.getByte(fmt + i);
            if (c == 0) return out.toByteArray();
            out.write(c);
        }
        throw call.badArgument("bpf_snprintf fmt (r3): no NUL within " + MAX_FMT + " bytes");
    }

    private static int indexOfNul(byte[] b) {
        for (int i = 0; i < b.length; i++) if (b[i] == 0) return i;
        return -1;
    }

    private static Bprintf.Memory memory(HelperCall call, ProbeMemory mem) {
        return new Bprintf.Memory() {
            @Override public byte[] string(long address, int max) { return mem.readString(call, address, max); }
            @Override public byte[] bytes(long address, int n) { return mem.readBytes(call, address, n); }
        };
    }
}
