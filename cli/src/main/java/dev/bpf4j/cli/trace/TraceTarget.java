package dev.bpf4j.cli.trace;

import dev.bpf4j.jit.probe.NativeProbes;
import dev.bpf4j.jit.probe.ProbeLink;
import dev.bpf4j.jit.probe.ProbeProgram;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code bpf4j trace} probes and calls: a library (dlopen'ed through jffi), the functions to
 * attach to at their entry ({@code functions}) and at their return ({@code returns},
 * uretprobe-style), and the entry {@code long entry(long)} to call. Resolving checks the library
 * and every symbol up front, with a clear {@link IllegalArgumentException} for each mistake.
 */
public record TraceTarget(Path library, String entry, long entryAddress, Map<String, Long> functions, Map<String, Long> returns) {
    public TraceTarget {
        functions = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(functions));
        returns = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(returns));
    }

    /** Entry probes only. */
    public static TraceTarget resolve(Path library, String entry, List<String> attach) { return resolve(library, entry, attach, List.of()); }

    /**
     * Loads {@code library} and looks up {@code entry} (null: none, entryAddress 0) and every function
     * of {@code attach}. A bare name that is not a file ("libc.so.6") is left to dlopen's search path.
     */
    public static TraceTarget resolve(Path library, String entry, List<String> attach, List<String> attachReturn) {
        boolean bare = library.getNameCount() == 1 && !library.toString().startsWith(".") && !Files.exists(library);
        if (!bare && !Files.isRegularFile(library)) throw new IllegalArgumentException("no such library: " + library);
        // dlopen looks a bare name up on the library path, not in the current directory.
        String path = bare ? library.toString() : library.toAbsolutePath().normalize().toString();
        long entryAddress = entry == null ? 0 : NativeProbes.address(path, entry);
        Map<String, Long> functions = new LinkedHashMap<>();
        for (String f : attach) {
            if (functions.put(f, NativeProbes.address(path, f)) != null) throw new IllegalArgumentException("function '" + f + "' given twice in --attach");
        }
        Map<String, Long> returns = new LinkedHashMap<>();
        for (String f : attachReturn) {
            if (returns.put(f, NativeProbes.address(path, f)) != null) throw new IllegalArgumentException("function '" + f + "' given twice in --attach-return");
        }
        if (functions.isEmpty() && returns.isEmpty()) throw new IllegalArgumentException("no function to attach to");
        return new TraceTarget(bare ? library : Path.of(path), entry, entryAddress, functions, returns);
    }

    /** Attaches {@code probe} to every entry and every return of the target, adding each link to {@code links} as it is made. */
    public void attachAll(ProbeProgram probe, List<ProbeLink> links) {
        for (Map.Entry<String, Long> f : functions.entrySet()) links.add(NativeProbes.attach(f.getValue(), f.getKey(), probe));
        for (Map.Entry<String, Long> f : returns.entrySet()) links.add(NativeProbes.attachReturn(f.getValue(), f.getKey(), probe));
    }

    /** How a link is named in hit lines: the function, with " (return)" for a return probe. */
    public static String probeName(ProbeLink link) { return link.function() + (link.atReturn() ? " (return)" : ""); }

    public List<String> functionNames() { return new ArrayList<>(functions.keySet()); }
}
