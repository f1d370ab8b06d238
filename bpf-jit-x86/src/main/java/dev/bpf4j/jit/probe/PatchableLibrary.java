package dev.bpf4j.jit.probe;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Builds C source with gcc into a shared library whose functions {@link NativeProbes} can probe:
 * each starts with the 5-byte nop of {@code -pg -mfentry -mnop-mcount}. gcc refuses
 * {@code -mnop-mcount} with {@code -fPIC}, so the library is {@code -fno-pic} (fine for a shared
 * library whose calls go through the PLT); frame pointers are kept so stack walks name every caller.
 * Tests and benchmarks build their probed libraries with it.
 */
public final class PatchableLibrary {
    /** The flags: {@code gcc FLAGS -o libX.so X.c} gives a library every instrumented function of which can be probed. */
    public static final List<String> FLAGS = List.of("-O1", "-fno-omit-frame-pointer", "-pg", "-mfentry", "-mnop-mcount",
            "-fno-pic", "-shared");

    private PatchableLibrary() {}

    /** Whether {@code gcc} runs. */
    public static boolean gccAvailable() {
        try {
            return new ProcessBuilder("gcc", "--version").redirectErrorStream(true).start().waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Compiles {@code source} into {@code lib<name>.so} in a fresh temporary directory (deleted on
     * exit), with {@link #FLAGS} then {@code extraFlags}; returns its path. gcc's output is in the
     * exception when it fails.
     */
    public static Path build(String name, String source, List<String> extraFlags) {
        try {
            Path dir = Files.createTempDirectory("bpf4j-probe-");
            Path c = dir.resolve(name + ".c"), so = dir.resolve("lib" + name + ".so");
            Files.writeString(c, source);
            List<String> cmd = new ArrayList<>(List.of("gcc"));
            cmd.addAll(FLAGS);
            cmd.addAll(extraFlags);
            cmd.addAll(List.of("-o", so.toString(), c.toString()));
            run(cmd);
            for (Path p : List.of(so, c, dir)) p.toFile().deleteOnExit();
            return so;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs {@code cmd}; its combined output, or an exception with it when the command fails. */
    public static String run(List<String> cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(cmd + " timed out");
            }
            if (p.exitValue() != 0) throw new IllegalStateException(cmd + " failed:\n" + out);
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(cmd + " interrupted", e);
        }
    }
}
