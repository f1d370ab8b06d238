package dev.bpf4j.unwind.profile;

import dev.bpf4j.unwind.Frame;

/**
 * A frame's name in a folded stack, as Linux perf + stackcollapse-perf.pl name them: the symbol
 * without its offset (C++ symbols cut to their qualified name, {@link CxxNames}); {@code [module]}
 * for code of a known file without a symbol; {@code [unknown]} when nothing is known (anonymous
 * code such as the JVM's code cache, garbage return addresses).
 * ';' separates frames and a newline ends a line, so neither may appear in a name.
 */
public final class FrameNames {
    private FrameNames() {}

    public static final String UNKNOWN = "[unknown]";

    public static String of(Frame f) {
        if (f.symbol() != null) return clean(CxxNames.shortName(f.symbol()));
        if (f.module() != null && !f.module().startsWith("[anon")) {
            String m = f.module();
            return "[" + clean(m.substring(m.lastIndexOf('/') + 1)) + "]";
        }
        return UNKNOWN;
    }

    static String clean(String name) {
        return name.replace(';', ':').replace('\n', ' ').replace('\r', ' ');
    }
}
