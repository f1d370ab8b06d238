package dev.bpf4j.jit.probe;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.BpfProgram;
import dev.bpf4j.object.ProgramType;

/**
 * The user-facing way to probe a native function of this process with a program of a loaded
 * object, held open while the caller's own code runs:
 *
 * <pre>{@code
 * try (BpfObject obj = BpfObject.open(path).load(options);
 *      ProbeLink link = Probe.attach("libfoo.so", "foo", obj, "count")) {
 *     runWorkload();                  // every call of foo, on any thread of this process, runs "count"
 * }                                   // detached here; then read obj's maps
 * }</pre>
 *
 * The program must be a kprobe-type program (ctx = {@code struct pt_regs *}); it may touch the
 * object's maps. Attach and detach are safe while other threads run the function. Only this
 * process is probed ("pid self"): a probe sees every thread of the JVM, its own threads included,
 * and nothing of other processes.
 */
public final class Probe {
    private Probe() {}

    /** Attaches {@code program} of {@code object} to {@code symbol} of {@code library} (dlopen'ed if needed). */
    public static ProbeLink attach(String library, String symbol, BpfObject object, String program) {
        return NativeProbes.attach(library, symbol, probeProgram(object, program));
    }

    /**
     * Attaches {@code program} to the return of {@code symbol} (a {@code SEC("kretprobe")} /
     * {@code uretprobe} program): it runs as the function returns, {@code PT_REGS_RC(ctx)} = the
     * return value, ip = the return address in the caller. Safe to detach while threads are inside
     * the function: they still return to their callers.
     */
    public static ProbeLink attachReturn(String library, String symbol, BpfObject object, String program) {
        return NativeProbes.attachReturn(library, symbol, probeProgram(object, program));
    }

    private static ProbeProgram probeProgram(BpfObject object, String program) {
        BpfProgram p = object.program(program);
        if (p.type() != ProgramType.KPROBE) {
            throw new IllegalArgumentException("program '" + program + "' is " + p.type() + ": probes run kprobe programs (ctx = struct pt_regs *)");
        }
        return ProbeProgram.of(p.defaultExecutable(), object.mapTable().regions());
    }
}
