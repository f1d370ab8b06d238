package dev.bpf4j.cli.trace;

import dev.bpf4j.jit.probe.NativeProbes;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code bpf4j trace} probes and calls: a library (dlopen'ed through jffi), the functions to
 * attach to and the entry {@code long entry(long)} to call. Resolving checks the library and every
 * symbol up front, with a clear {@link IllegalArgumentException} for each mistake.
 */
public record TraceTarget(Path library, String entry, long entryAddress, Map<String, Long> functions) {
    public TraceTarget {
        functions = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(functions));
    }

    /**
     * Loads {@code library} and looks up {@code entry} (null: none, entryAddress 0) and every function
     * of {@code attach}. A bare name that is not a file ("libc.so.6") is left to dlopen's search path.
     */
    public static TraceTarget resolve(Path library, String entry, List<String> attach) {
        boolean bare = library.getNameCount() == 1 && !library.toString().startsWith(".") && !Files.exists(library);
        if (!bare && !Files.isRegularFile(library)) throw new IllegalArgumentException("no such library: " + library);
        // dlopen looks a bare name up on the library path, not in the current directory.
        String path = bare ? library.toString() : library.toAbsolutePath().normalize().toString();
        long entryAddress = entry == null ? 0 : NativeProbes.address(path, entry);
        Map<String, Long> functions = new LinkedHashMap<>();
        for (String f : attach) {
            if (functions.put(f, NativeProbes.address(path, f)) != null) throw new IllegalArgumentException("function '" + f + "' given twice in --attach");
        }
        if (functions.isEmpty()) throw new IllegalArgumentException("no function to attach to");
        return new TraceTarget(bare ? library : Path.of(path), entry, entryAddress, functions);
    }

    public List<String> functionNames() { return new ArrayList<>(functions.keySet()); }
}
