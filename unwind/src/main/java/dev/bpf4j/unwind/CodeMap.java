package dev.bpf4j.unwind;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The generated-code regions of this process, by address. Thread-safe: code generators register
 * and unregister while samplers and unwinders look up.
 */
public final class CodeMap {
    private static final CodeMap GLOBAL = new CodeMap();

    private final ConcurrentSkipListMap<Long, CodeRegion> byStart =
            new ConcurrentSkipListMap<>(Long::compareUnsigned);

    /** The process-wide map every JIT registers with. */
    public static CodeMap global() { return GLOBAL; }

    /** Adds {@code region}; it must not overlap a registered one. */
    public void register(CodeRegion region) {
        synchronized (this) {
            Optional<CodeRegion> clash = overlapping(region);
            if (clash.isPresent()) {
                throw new IllegalStateException("code region " + region.symbol() + " overlaps " + clash.get().symbol());
            }
            byStart.put(region.start(), region);
        }
    }

    /** Removes {@code region}; returns false when it was not registered. */
    public boolean unregister(CodeRegion region) {
        return byStart.remove(region.start(), region);
    }

    /** The region containing {@code ip}. */
    public Optional<CodeRegion> find(long ip) {
        Map.Entry<Long, CodeRegion> e = byStart.floorEntry(ip);
        if (e == null || !e.getValue().contains(ip)) return Optional.empty();
        return Optional.of(e.getValue());
    }

    public int size() { return byStart.size(); }

    public List<CodeRegion> regions() { return new ArrayList<>(byStart.values()); }

    private Optional<CodeRegion> overlapping(CodeRegion r) {
        Map.Entry<Long, CodeRegion> below = byStart.floorEntry(r.end() - 1);
        if (below != null && Long.compareUnsigned(below.getValue().end(), r.start()) > 0) {
            return Optional.of(below.getValue());
        }
        return Optional.empty();
    }
}
