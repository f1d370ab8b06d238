package dev.bpf4j.jit.probe;

import dev.bpf4j.unwind.ProcMaps;

import java.util.Optional;

/** Questions about {@code /proc/self/maps} that attaching asks. */
final class ProbeMaps {
    private ProbeMaps() {}

    static boolean executable(long address) {
        return ProcMaps.containing(address).map(ProcMaps.Mapping::executable).orElse(false);
    }

    /** The base name of the file mapped at {@code address} ("libfoo.so"), as the symbolizer prints it. */
    static Optional<String> moduleName(long address) {
        return ProcMaps.containing(address).filter(ProcMaps.Mapping::fileBacked).map(m -> {
            String p = m.path().endsWith(" (deleted)") ? m.path().substring(0, m.path().length() - 10) : m.path();
            return p.substring(p.lastIndexOf('/') + 1);
        });
    }
}
