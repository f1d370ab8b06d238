package dev.bpf4j.jit.probe;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.jit.HelperBinding;
import dev.bpf4j.jit.runtime.JitExecutable;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.MemoryRegion;

import java.util.List;
import java.util.Objects;

/**
 * A loaded program as a probe runs it, with the memory it may touch besides its context (map
 * values, global sections). Its context is always the hit's {@code pt_regs}, read-only, 168 bytes.
 *
 * <p>A JIT program is <em>direct</em>: the trampoline calls its entry itself with an env block built
 * on the stack (tens of ns a hit). Its Java helpers find their run from that block through the
 * helper bridge ({@code DirectRuns}), with registers = the hit's pt_regs. Any other program
 * (interpreter, or JIT code that may call {@code bpf_tail_call}, whose targets stay pinned until a
 * Java {@link Executable#run} ends) is run through an upcall closure into Java ({@code run} with
 * registers = the hit's pt_regs; ~200 ns a hit).
 */
public final class ProbeProgram {
    private final Executable executable;
    private final List<MemoryRegion> regions;
    private final boolean direct;

    private ProbeProgram(Executable executable, List<MemoryRegion> regions, boolean direct) {
        this.executable = Objects.requireNonNull(executable, "executable");
        this.regions = List.copyOf(regions);
        this.direct = direct;
    }

    /** Direct when it can be (see the class comment), through the upcall otherwise. */
    public static ProbeProgram of(Executable executable, List<MemoryRegion> regions) {
        return new ProbeProgram(executable, regions, canCallDirectly(executable));
    }

    /** Always through the upcall closure, whatever the engine. */
    public static ProbeProgram upcall(Executable executable, List<MemoryRegion> regions) {
        return new ProbeProgram(executable, regions, false);
    }

    private static boolean canCallDirectly(Executable e) {
        if (!(e instanceof JitExecutable)) return false;
        var bindings = ((JitExecutable) e).helperBindings();
        return !bindings.containsKey(HelperIds.TAIL_CALL) && !bindings.containsKey(HelperBinding.CALLX); // callx may tail-call too
    }

    public Executable executable() { return executable; }

    public List<MemoryRegion> regions() { return regions; }

    /** True when the trampoline calls the JIT code itself. */
    public boolean direct() { return direct; }

    public String name() { return executable.program().name(); }
}
