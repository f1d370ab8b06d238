package dev.bpf4j.cli.profile;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Starts a command stopped before its first instruction, as {@code perf record -- COMMAND} does, so
 * that its events are open before it runs: {@code sh -c 'kill -STOP $$; exec "$0" "$@"' COMMAND ARGS}
 * stops the shell, the caller opens its events on that pid (which {@code exec} keeps) and
 * {@link #resume}s it. The command's output goes to ours.
 */
public final class StoppedCommand {
    private static final String STOP_THEN_EXEC = "kill -STOP $$; exec \"$0\" \"$@\"";

    private StoppedCommand() {}

    /** The executable {@code command.get(0)} names (a path, or a name on {@code PATH}); empty when there is none. */
    public static Optional<Path> resolve(String name) {
        if (name.contains("/")) return Files.isExecutable(Path.of(name)) && !Files.isDirectory(Path.of(name)) ? Optional.of(Path.of(name)) : Optional.empty();
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(File.pathSeparator)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isExecutable(p) && !Files.isDirectory(p)) return Optional.of(p);
        }
        return Optional.empty();
    }

    /** Starts {@code command} and returns once it is stopped (state T in {@code /proc/PID/stat}). */
    static Process start(List<String> command) {
        List<String> argv = new ArrayList<>(List.of("/bin/sh", "-c", STOP_THEN_EXEC));
        argv.addAll(command);
        Process p;
        try {
            p = new ProcessBuilder(argv).inheritIO().start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start /bin/sh for " + command.get(0) + ": " + e.getMessage(), e);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!stopped(p.pid())) {
            if (!p.isAlive()) throw new IllegalStateException("/bin/sh exited (status " + p.exitValue() + ") before running " + command.get(0));
            if (System.nanoTime() > deadline) {
                p.destroyForcibly();
                throw new IllegalStateException("/bin/sh did not stop before running " + command.get(0));
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
                throw new IllegalStateException("interrupted while starting " + command.get(0));
            }
        }
        return p;
    }

    /** Lets the stopped command go on (SIGCONT). */
    static void resume(Process p) {
        try {
            Process kill = new ProcessBuilder("/bin/sh", "-c", "kill -CONT " + p.pid()).inheritIO().start();
            if (kill.waitFor() != 0) throw new IllegalStateException("kill -CONT " + p.pid() + " failed");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot resume " + p.pid() + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while resuming " + p.pid());
        }
    }

    /** The state letter of /proc/PID/stat ("pid (comm) S ..."): T = stopped. */
    private static boolean stopped(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            int close = stat.lastIndexOf(')');
            return close > 0 && close + 2 < stat.length() && stat.charAt(close + 2) == 'T';
        } catch (IOException e) {
            return false;   // not there yet, or gone (isAlive says which)
        }
    }
}
