package dev.bpf4j.cli.profile;

import dev.bpf4j.unwind.profile.FlameGraphHtml;
import dev.bpf4j.unwind.profile.FoldedStacks;
import dev.bpf4j.unwind.profile.PprofWriter;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Writes a profile's folded stacks and flame graph, and prints its top stacks. */
public final class ProfileOutput {
    private ProfileOutput() {}

    /** Frames shown per stack in the printed top list (the leaf end; the full stacks are in the files). */
    static final int SHOWN_FRAMES = 6;

    /**
     * One engine: {@code DIR/stacks.folded}, {@code DIR/profile.pb.gz} (pprof) and {@code DIR/flame.html}.
     * Several: {@code ENGINE.folded} and {@code ENGINE.pb.gz} per engine, one page rooted at each engine's name.
     * @param periodNanos CPU time per sample (1e9 / frequency), for pprof's cpu values
     */
    public static List<Path> write(Path dir, List<ProfileReport> reports, String title, long periodNanos) {
        long now = System.currentTimeMillis() * 1_000_000L;
        try {
            Files.createDirectories(dir);
            List<Path> written = new ArrayList<>();
            FoldedStacks page;
            if (reports.size() == 1) {
                page = reports.get(0).stacks();
                written.add(Files.writeString(dir.resolve("stacks.folded"), page.format()));
                written.add(Files.write(dir.resolve("profile.pb.gz"), pprof(reports.get(0), periodNanos, now)));
            } else {
                page = new FoldedStacks();
                for (ProfileReport r : reports) {
                    written.add(Files.writeString(dir.resolve(r.engine() + ".folded"), r.stacks().format()));
                    written.add(Files.write(dir.resolve(r.engine() + ".pb.gz"), pprof(r, periodNanos, now)));
                    for (Map.Entry<List<String>, Long> e : r.stacks().counts().entrySet()) {
                        List<String> rooted = new ArrayList<>(e.getKey().size() + 1);
                        rooted.add(r.engine());
                        rooted.addAll(e.getKey());
                        page.add(rooted, e.getValue());
                    }
                }
            }
            written.add(Files.writeString(dir.resolve("flame.html"), FlameGraphHtml.render(page, title)));
            return written;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the profile to " + dir + ": " + e.getMessage(), e);
        }
    }

    private static byte[] pprof(ProfileReport r, long periodNanos, long now) {
        return PprofWriter.gzipped(r.stacks(), periodNanos, now - r.elapsedNanos(), r.elapsedNanos());
    }

    /** The {@code n} most sampled stacks, count and share first, root-most frames elided. */
    public static void printTop(FoldedStacks stacks, int n, PrintStream out) {
        long total = stacks.total();
        for (Map.Entry<List<String>, Long> e : stacks.top(n)) {
            List<String> f = e.getKey();
            String shown = f.size() <= SHOWN_FRAMES ? String.join(";", f) : "...;" + String.join(";", f.subList(f.size() - SHOWN_FRAMES, f.size()));
            out.printf("%6d %5.1f%%  %s%n", e.getValue(), 100.0 * e.getValue() / total, shown);
        }
    }
}
