package dev.bpf4j.unwind;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongUnaryOperator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The generated-code regions of this process, by address. Thread-safe: code generators register
 * and unregister while samplers and unwinders look up.
 */
public final class CodeMap {
    private static final CodeMap GLOBAL = new CodeMap();

    private final ConcurrentSkipListMap<Long, CodeRegion> byStart =
            new ConcurrentSkipListMap<>(Long::compareUnsigned);
    private final List<CodeMapListener> listeners = new CopyOnWriteArrayList<>();
    /** Return trampolines (uretprobe-style) by the address they put in return-address slots. */
    private final Map<Long, LongUnaryOperator> returnTrampolines = new ConcurrentHashMap<>();

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
            for (CodeMapListener l : listeners) notify(l, region, true);
        }
    }

    /** Removes {@code region}; returns false when it was not registered. */
    public boolean unregister(CodeRegion region) {
        synchronized (this) {
            boolean removed = byStart.remove(region.start(), region);
            if (removed) for (CodeMapListener l : listeners) notify(l, region, false);
            return removed;
        }
    }

    /**
     * Adds {@code listener} and replays every region already registered to it, so it sees the
     * whole map whenever it joins. Adding the same listener twice has no effect.
     */
    public void addListener(CodeMapListener listener) {
        synchronized (this) {
            if (listeners.contains(listener)) return;
            listeners.add(listener);
            for (CodeRegion r : byStart.values()) notify(listener, r, true);
        }
    }

    /** Removes {@code listener}; returns false when it was not added. */
    public boolean removeListener(CodeMapListener listener) {
        synchronized (this) { return listeners.remove(listener); }
    }

    private static void notify(CodeMapListener l, CodeRegion r, boolean registered) {
        try {
            if (registered) l.registered(r); else l.unregistered(r);
        } catch (RuntimeException e) {
            System.err.println("bpf4j: code map listener " + l + " failed on " + r.symbol() + ": " + e);
        }
    }

    /** The region containing {@code ip}. */
    public Optional<CodeRegion> find(long ip) {
        Map.Entry<Long, CodeRegion> e = byStart.floorEntry(ip);
        if (e == null || !e.getValue().contains(ip)) return Optional.empty();
        return Optional.of(e.getValue());
    }

    /**
     * Declares {@code address} as a return trampoline: a return probe writes it over the return
     * address of a running function. {@code originalReturn} maps the stack address of such a slot
     * to the return address it replaced, for the calling thread (0: not known).
     */
    public void registerReturnTrampoline(long address, LongUnaryOperator originalReturn) {
        returnTrampolines.put(address, originalReturn);
    }

    /**
     * The return address a return trampoline replaced in the slot at {@code slot}, when {@code ra}
     * read there is a return trampoline; {@code ra} itself otherwise, or 0 when the trampoline cannot
     * tell (a slot of another thread's stack).
     */
    public long originalReturn(long ra, long slot) {
        if (returnTrampolines.isEmpty()) return ra;
        LongUnaryOperator f = returnTrampolines.get(ra);
        return f == null ? ra : f.applyAsLong(slot);
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
