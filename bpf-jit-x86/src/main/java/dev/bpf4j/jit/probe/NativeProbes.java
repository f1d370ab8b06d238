package dev.bpf4j.jit.probe;

import com.kenai.jffi.Library;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Attaches programs to the entry of native functions (fentry-style): the function's patchable
 * 5-byte nop becomes a {@code call} to a trampoline that saves the registers into a
 * {@code pt_regs}, builds the frames ftrace builds for fentry (so stack walks from inside show the
 * traced function and its parent), runs every attached program with ctx = {@code &pt_regs}, restores every
 * register and continues the function. See {@link NativeProbe} for the concurrency rule.
 */
public final class NativeProbes {
    private NativeProbes() {}

    private static final Map<Long, NativeProbe> BY_FUNCTION = new HashMap<>();

    /** Exits blocks of return-probed functions, by function: permanent (shadow stack entries point at them). */
    private static final Map<Long, Long> EXITS = new HashMap<>();

    /** Attaches {@code program} to the function at {@code function} ({@code name} is used in symbols and errors). */
    public static ProbeLink attach(long function, String name, ProbeProgram program) { return attach(function, name, program, false); }

    /**
     * Attaches {@code program} to the return of the function at {@code function} (uretprobe-style):
     * it runs as the function returns, with ctx = the registers then ({@code ax} the return value,
     * {@code ip} the return address in the caller, {@code sp} as after the return).
     */
    public static ProbeLink attachReturn(long function, String name, ProbeProgram program) { return attach(function, name, program, true); }

    /** Attaches to the return of {@code symbol} of the library at {@code library} (loaded if it is not yet). */
    public static ProbeLink attachReturn(String library, String symbol, ProbeProgram program) {
        return attachReturn(address(library, symbol), symbol, program);
    }

    private static synchronized ProbeLink attach(long function, String name, ProbeProgram program, boolean atReturn) {
        // Classes a hit's helpers use are made ready here, not inside a hit: a class whose first use
        // is inside a probe on malloc may fail to initialise there, and then stays unusable for the JVM.
        dev.bpf4j.unwind.ThreadStack.current();
        NativeProbe probe = BY_FUNCTION.get(function);
        if (probe == null) probe = new NativeProbe(PatchSite.inspect(name, function));
        ProbeLink link = probe.attach(program, atReturn);
        BY_FUNCTION.put(function, probe);
        return link;
    }

    static synchronized long exitsBlock(long function) {
        return EXITS.computeIfAbsent(function, f -> ReturnTrampoline.exitsBlock());
    }

    static synchronized void detach(NativeProbe probe, ProbeLink link) {
        probe.detach(link);
        if (probe.isEmpty()) BY_FUNCTION.remove(probe.site().function(), probe);
    }

    /** Attaches to {@code symbol} of the library at {@code library} (loaded if it is not yet). */
    public static ProbeLink attach(String library, String symbol, ProbeProgram program) {
        return attach(address(library, symbol), symbol, program);
    }

    /** The address of {@code symbol} in {@code library}, or a clear error. */
    public static long address(String library, String symbol) {
        Library lib = Library.getCachedInstance(library, Library.LAZY | Library.LOCAL);
        if (lib == null) throw new IllegalArgumentException("cannot load '" + library + "': " + Library.getLastError());
        long a = lib.getSymbolAddress(symbol);
        if (a == 0) throw new IllegalArgumentException("'" + library + "' has no symbol '" + symbol + "'");
        return a;
    }

    /** The probe on {@code function}, if any program is attached. */
    static synchronized Optional<NativeProbe> probe(long function) { return Optional.ofNullable(BY_FUNCTION.get(function)); }
}
