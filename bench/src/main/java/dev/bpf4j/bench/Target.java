package dev.bpf4j.bench;

import dev.bpf4j.engine.Bpf;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;

/**
 * One workload made runnable on one engine over one input: a loaded BPF program with its run
 * context, or the gcc function with the buffer's address and length. {@link #run()} is what the
 * benchmarks time.
 */
public interface Target extends AutoCloseable {
    long run();

    @Override void close();

    /** The workload's BPF program loaded into {@code engine} (validated first, entry r1/r2). */
    static Target bpf(Engine engine, Workload workload, DataBuffer data) {
        Executable exe = Bpf.load(workload.program(), engine, LoadOptions.defaults().withEntryArgs(2));
        return new BpfTarget(exe, data);
    }

    /** The workload's gcc-compiled function, called through jffi or (jniEntry) through the JIT's JNI entry. */
    static Target gcc(GccLibrary library, Workload workload, DataBuffer data, boolean jniEntry) {
        return new GccTarget(library.function(workload.nativeSymbol()), data.address(), data.length(), jniEntry);
    }

    /** {@link #bpf} or {@link #gcc} by engine name; a missing engine is a clear error. */
    static Target create(String engine, Workload workload, DataBuffer data, GccLibrary gcc) {
        if (EngineParams.isGcc(engine)) return gcc(gcc, workload, data, EngineParams.GCC_JNI.equals(engine));
        return bpf(EngineParams.require(engine), workload, data);
    }

    final class BpfTarget implements Target {
        private final Executable exe;
        private final RunContext context;

        BpfTarget(Executable exe, DataBuffer data) {
            this.exe = exe;
            this.context = data.context();
        }

        @Override public long run() { return exe.run(context); }

        @Override public void close() { exe.close(); }
    }

    final class GccTarget implements Target {
        private final GccLibrary.NativeFunction function;
        private final long address, length;
        private final boolean jniEntry;

        GccTarget(GccLibrary.NativeFunction function, long address, long length, boolean jniEntry) {
            this.function = function;
            this.address = address;
            this.length = length;
            this.jniEntry = jniEntry;
        }

        @Override public long run() { return jniEntry ? function.callThroughJniEntry(address, length) : function.call(address, length); }

        @Override public void close() {}
    }
}
