package dev.bpf4j.jit;

import dev.bpf4j.engine.Engine;
import dev.bpf4j.jit.runtime.JitExecutable;
import dev.bpf4j.jit.runtime.JitLoader;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.unwind.perf.PerfInterop;
import dev.bpf4j.verifier.ValidatedProgram;

/**
 * The x86-64 JIT engine ("jit"): compiles a validated program to native code with a real rbp
 * frame per function, maps it W^X and registers every function with the code map. Java helpers
 * are called through a generated JNI upcall ({@code HelperUpcall}), or the jffi closure where JNI
 * cannot be reached; {@link #withNativeHelper} binds a helper id to native code
 * instead (hot helpers, tests that inspect the machine state). The work is done by the internal
 * {@code JitLoader}, which bpf4j's tools use where they need the compiled code itself.
 *
 * <p>Perf interop: {@link LoadOptions#perfMap()} starts the process's {@code /tmp/perf-<pid>.map};
 * the system property {@code bpf4j.jitdump=true} its jitdump file (see {@link PerfInterop}). Both
 * stay on for the rest of the process and cover every JIT function and stub block.
 */
public final class JitEngine implements Engine {
    private final JitLoader loader;

    public JitEngine() { this(new JitLoader()); }

    private JitEngine(JitLoader loader) { this.loader = loader; }

    /** A copy of this engine that calls native code at {@code binding.address()} for helper {@code binding.id()}. */
    public JitEngine withNativeHelper(HelperBinding binding) { return new JitEngine(loader.withNativeHelper(binding)); }

    @Override public String name() { return "jit"; }

    /** Tail calls jump between programs this engine compiled (kernel style: same frame). */
    @Override public boolean canTailCallInto(Object target) { return target instanceof JitExecutable; }

    @Override public Executable load(Program program, LoadOptions options) { return loader.load(program, options); }

    /** A verified program: its facts keep every access the verifier did not type as a stack pointer out of the frames. */
    @Override public Executable load(ValidatedProgram program, LoadOptions options) { return loader.load(program, options); }
}
