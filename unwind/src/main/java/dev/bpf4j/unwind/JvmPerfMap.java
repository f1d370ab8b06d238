package dev.bpf4j.unwind;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Names this JVM's own generated code — the interpreter, stubs, compiled Java — the way Linux perf
 * does for a JVM: HotSpot writes {@code /tmp/perf-PID.map} when asked (the {@code Compiler.perfmap}
 * diagnostic command, JDK 17 and later), here through the DiagnosticCommand MBean in-process, and the
 * map is read when a profile is named ({@code -XX:+DumpPerfMapAtExit} is the same at exit). Compiled
 * code that the JVM freed or moved between a sample and the dump is named after what is there at the
 * dump (perf has the same limit).
 *
 * <p>The command truncates the file. Lines bpf4j wrote there before ({@code --perf-map}: its JIT
 * code, for Linux perf) are appended again after the JVM's, so the file keeps naming both; a line
 * appended by another thread while the command runs can be lost. When there was no file before, it
 * is removed once read, so a profile leaves nothing in {@code /tmp}.
 */
public final class JvmPerfMap {
    private JvmPerfMap() {}

    private static final String MBEAN = "com.sun.management:type=DiagnosticCommand";

    /** The map of this JVM's code as of now, or empty with the reason when the JVM cannot write one. */
    public static Result dumpSelf() {
        Path path = Path.of("/tmp", "perf-" + ProcessHandle.current().pid() + ".map");
        synchronized (JvmPerfMap.class) {
            try {
                List<String> before = Files.exists(path) ? Files.readAllLines(path, StandardCharsets.UTF_8) : null;
                MBeanServer server = ManagementFactory.getPlatformMBeanServer();
                server.invoke(new ObjectName(MBEAN), "compilerPerfmap", new Object[] {new String[0]}, new String[] {String[].class.getName()});
                if (before != null) restore(path, before);
                PerfMapFile map = new PerfMapFile(path);
                int entries = map.readNow();
                if (before == null) Files.deleteIfExists(path);
                if (entries == 0) return new Result(Optional.empty(), "Compiler.perfmap wrote no entries to " + path);
                return new Result(Optional.of(map), null);
            } catch (JMException | IOException | RuntimeException e) {
                return new Result(Optional.empty(), "cannot dump this JVM's perf map (Compiler.perfmap): " + e);
            }
        }
    }

    /** A perf map of this JVM, read and kept in memory, or why there is none. */
    public record Result(Optional<PerfMapFile> map, String error) {}

    /** Appends the lines the file had before that the JVM's dump does not hold. */
    private static void restore(Path path, List<String> before) throws IOException {
        Set<String> now = new HashSet<>(Files.readAllLines(path, StandardCharsets.UTF_8));
        StringBuilder missing = new StringBuilder();
        for (String line : before) if (!line.isBlank() && !now.contains(line)) missing.append(line).append('\n');
        if (missing.length() > 0) Files.writeString(path, missing, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    }
}
