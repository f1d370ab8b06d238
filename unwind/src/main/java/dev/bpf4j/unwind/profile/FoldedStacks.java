package dev.bpf4j.unwind.profile;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Counts per distinct stack, in the "folded" form flamegraph.pl, speedscope and inferno read: one
 * line per stack, frames root first separated by ';', a space, the count ({@code a;b;c 12}).
 * Thread-safe: samples are added on the sampler's reader thread and read by whoever reports.
 */
public final class FoldedStacks {
    private final Map<List<String>, Long> counts = new LinkedHashMap<>();
    private long total;

    /** Adds {@code count} samples of the stack {@code rootFirst} (at least one frame). */
    public synchronized void add(List<String> rootFirst, long count) {
        if (rootFirst.isEmpty()) throw new IllegalArgumentException("a folded stack needs at least one frame");
        if (count <= 0) throw new IllegalArgumentException("count " + count + " must be positive");
        for (String f : rootFirst) {
            if (f.isEmpty() || f.indexOf(';') >= 0 || f.indexOf('\n') >= 0) throw new IllegalArgumentException("bad frame name '" + f + "' in " + rootFirst);
        }
        counts.merge(List.copyOf(rootFirst), count, Long::sum);
        total += count;
    }

    public void add(List<String> rootFirst) { add(rootFirst, 1); }

    public synchronized long total() { return total; }

    /** Every stack and its count, sorted by stack (as stackcollapse prints them). */
    public synchronized Map<List<String>, Long> counts() {
        Map<List<String>, Long> sorted = new TreeMap<>(FoldedStacks::compareStacks);
        sorted.putAll(counts);
        return sorted;
    }

    /** The {@code n} stacks with the highest counts, highest first (ties in stack order). */
    public synchronized List<Map.Entry<List<String>, Long>> top(int n) {
        List<Map.Entry<List<String>, Long>> all = new ArrayList<>(counts().entrySet());
        all.sort(Map.Entry.<List<String>, Long>comparingByValue(Comparator.reverseOrder()));
        return all.subList(0, Math.min(n, all.size()));
    }

    /** The folded text, one {@code a;b;c count} line per stack. */
    public String format() {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<List<String>, Long> e : counts().entrySet()) {
            sb.append(String.join(";", e.getKey())).append(' ').append(e.getValue()).append('\n');
        }
        return sb.toString();
    }

    /** Reads folded text back (the count after the last space of each line); bad lines name their number. */
    public static FoldedStacks parse(String text) {
        FoldedStacks out = new FoldedStacks();
        try (BufferedReader r = new BufferedReader(new StringReader(text))) {
            String line;
            int n = 0;
            while ((line = r.readLine()) != null) {
                n++;
                if (line.isBlank()) continue;
                int sp = line.lastIndexOf(' ');
                if (sp <= 0) throw new IllegalArgumentException("folded line " + n + ": no count: " + line);
                long count;
                try {
                    count = Long.parseLong(line.substring(sp + 1));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("folded line " + n + ": bad count: " + line);
                }
                out.add(List.of(line.substring(0, sp).split(";", -1)), count);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    private static int compareStacks(List<String> a, List<String> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = a.get(i).compareTo(b.get(i));
            if (c != 0) return c;
        }
        return Integer.compare(a.size(), b.size());
    }
}
