package dev.bpf4j.unwind.perf;

import dev.bpf4j.unwind.CodeMap;

import java.nio.file.Path;

/**
 * The process-wide switches that make the {@linkplain CodeMap#global() global code map} visible
 * to Linux perf. Each writer, once enabled, is a listener for the rest of the process: it is
 * first given every region already registered, then every new one.
 *
 * <ul>
 *   <li>{@link #enablePerfMap()}: {@code /tmp/perf-<pid>.map} (what {@code perf report} reads by itself).</li>
 *   <li>{@link #enableJitDump()}: {@code jit-<pid>.dump} in {@value #JITDUMP_DIR_PROPERTY} (default
 *       {@code java.io.tmpdir}), for {@code perf record -k 1} + {@code perf inject --jit}. The
 *       JIT turns it on when the system property {@value #JITDUMP_PROPERTY} is {@code true}.</li>
 * </ul>
 */
public final class PerfInterop {
    private PerfInterop() {}

    /** System property: {@code true} makes every JIT load write the jitdump file. */
    public static final String JITDUMP_PROPERTY = "bpf4j.jitdump";
    /** System property: the directory of the jitdump file. */
    public static final String JITDUMP_DIR_PROPERTY = "bpf4j.jitdump.dir";

    private static PerfMapWriter perfMap;
    private static JitDumpWriter jitDump;

    /** Starts writing the perf map of this process (once; later calls return the same writer). */
    public static synchronized PerfMapWriter enablePerfMap() {
        if (perfMap == null) {
            perfMap = new PerfMapWriter(PerfMapWriter.defaultPath());
            CodeMap.global().addListener(perfMap);
        }
        return perfMap;
    }

    /** Starts writing the jitdump file (once); it is closed with a JIT_CODE_CLOSE record at exit. */
    public static synchronized JitDumpWriter enableJitDump() {
        if (jitDump == null) {
            JitDumpWriter w = JitDumpWriter.create(jitDumpDir());
            CodeMap.global().addListener(w);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                CodeMap.global().removeListener(w);
                w.close();
            }, "bpf4j-jitdump-close"));
            jitDump = w;
        }
        return jitDump;
    }

    /** Whether {@value #JITDUMP_PROPERTY} asks for a jitdump file. */
    public static boolean jitDumpRequested() { return Boolean.getBoolean(JITDUMP_PROPERTY); }

    public static Path jitDumpDir() { return Path.of(System.getProperty(JITDUMP_DIR_PROPERTY, System.getProperty("java.io.tmpdir"))); }
}
