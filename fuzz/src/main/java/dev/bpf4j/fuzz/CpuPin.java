package dev.bpf4j.fuzz;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;
import dev.bpf4j.maps.Cpus;
import dev.bpf4j.runtime.NativeMemory;

/**
 * Pins the calling thread to one CPU ({@code sched_setaffinity(0, ...)}). Linux runs a test run with
 * migration disabled, so a program's per-CPU map accesses all land in one CPU's slot; bpf4j asks for
 * the CPU at each access, and a JVM thread that migrates in the middle of a run splits its updates
 * over two slots (a known difference, docs/fuzzing.md). Campaign workers pin themselves so that a
 * campaign is replayable and that difference does not drown the others; {@code --no-pin} shows it.
 */
final class CpuPin {
    private CpuPin() {}

    /** Pins the calling thread to CPU {@code cpu % possible}; false when that is not possible here. */
    static boolean pin(int cpu) {
        try {
            long fn = Library.getDefault().getSymbolAddress("sched_setaffinity");
            if (fn == 0) return false;
            CallContext ctx = CallContext.getCallContext(Type.SINT, new Type[] {Type.SINT, Type.ULONG, Type.POINTER},
                    CallingConvention.DEFAULT, true);
            int bytes = 128; // a cpu_set_t: 1024 CPUs
            long mask = NativeMemory.allocate(bytes);
            try {
                NativeMemory.setMemory(mask, bytes, (byte) 0);
                int c = Math.floorMod(cpu, Math.max(1, Math.min(Cpus.possible(), bytes * 8)));
                NativeMemory.putByte(mask + c / 8, (byte) (1 << (c % 8)));
                return Invoker.getInstance().invokeL3(ctx, fn, 0, bytes, mask) == 0;
            } finally {
                NativeMemory.free(mask);
            }
        } catch (Throwable t) {
            return false;
        }
    }
}
