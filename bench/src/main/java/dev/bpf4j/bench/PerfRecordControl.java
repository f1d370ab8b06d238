package dev.bpf4j.bench;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Linux {@code perf record} on this process as the baseline of {@link SamplingOverheadTiming}: the
 * same software event, rate and 16 KiB user stack copies as bpf4j's sampler ({@code -e cpu-clock -F HZ
 * --call-graph dwarf,16384}), started disabled ({@code -D -1}) and turned on and off per chunk through
 * its control FIFOs ({@code --control fifo:CTL,ACK}), so only its sampling is timed, not its start.
 */
final class PerfRecordControl implements AutoCloseable {
    private final Process perf;
    private final Path dir;
    private final RandomAccessFile ctl, ack;

    PerfRecordControl(long hz) {
        try {
            dir = Files.createTempDirectory("bpf4j-perf-baseline-");
            Path ctlPath = dir.resolve("ctl"), ackPath = dir.resolve("ack");
            for (Path p : List.of(ctlPath, ackPath)) {
                if (new ProcessBuilder("mkfifo", p.toString()).inheritIO().start().waitFor() != 0) throw new IOException("mkfifo " + p);
            }
            // O_RDWR opens of a FIFO do not wait for the other side.
            ctl = new RandomAccessFile(ctlPath.toFile(), "rw");
            ack = new RandomAccessFile(ackPath.toFile(), "rw");
            perf = new ProcessBuilder("perf", "record", "-q", "-e", "cpu-clock", "-F", Long.toString(hz), "--call-graph", "dwarf,16384",
                    "-p", Long.toString(ProcessHandle.current().pid()), "-o", dir.resolve("perf.data").toString(), "-D", "-1",
                    "--control", "fifo:" + ctlPath + "," + ackPath).redirectErrorStream(true).redirectOutput(dir.resolve("perf.log").toFile()).start();
            command("disable");   // answered once perf has opened its events and reads its control FIFO
        } catch (IOException e) {
            throw new UncheckedIOException("perf record baseline: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    void setSampling(boolean on) { command(on ? "enable" : "disable"); }

    /** CPU time perf's own process has used so far, from /proc (clock ticks of 10 ms), in ns. */
    long cpuNanos() {
        try {
            String[] f = Files.readString(Path.of("/proc/" + perf.pid() + "/stat")).replaceFirst(".*\\) ", "").split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10_000_000L;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    private void command(String c) {
        try {
            ctl.write((c + "\n").getBytes(StandardCharsets.US_ASCII));
            byte[] buf = new byte[5];
            ack.readFully(buf);   // "ack\n\0"
        } catch (IOException e) {
            throw new UncheckedIOException("perf record control '" + c + "': " + e.getMessage(), e);
        }
    }

    @Override public void close() {
        perf.destroy();
        try {
            perf.waitFor(30, TimeUnit.SECONDS);
            ctl.close();
            ack.close();
            try (var files = Files.list(dir)) { for (Path p : files.toList()) Files.deleteIfExists(p); }
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
