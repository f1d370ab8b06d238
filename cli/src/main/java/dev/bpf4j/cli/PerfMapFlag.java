package dev.bpf4j.cli;

import dev.bpf4j.unwind.perf.PerfInterop;
import dev.bpf4j.unwind.perf.PerfMapWriter;

import java.io.PrintStream;

/**
 * {@code --perf-map} of {@code run} (FILE and OBJ.o), {@code conformance}, {@code trace}, {@code profile}
 * and {@code demo}: JIT code is named in
 * {@code /tmp/perf-<pid>.map} for {@code perf report}. (A jitdump file: {@code -Dbpf4j.jitdump=true}.)
 */
final class PerfMapFlag {
    private PerfMapFlag() {}

    static final String NAME = "--perf-map";

    /** Whether the flag is set; when it is, says on {@code err} where the map goes. */
    static boolean given(Args args, PrintStream err) {
        if (!args.flag(NAME)) return false;
        err.println("perf map: " + PerfMapWriter.defaultPath());
        return true;
    }

    /** Switches the process's perf map on (what a JIT load with {@code LoadOptions.perfMap()} does). */
    static void enable() { PerfInterop.enablePerfMap(); }
}
