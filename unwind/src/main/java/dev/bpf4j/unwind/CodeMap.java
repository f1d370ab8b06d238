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
    private final Map<Long, ReturnTrampoline> returnTrampolines = new ConcurrentHashMap<>();

    /** What a return trampoline knows about the return addresses it replaced. */
    public interface ReturnTrampoline {
        /** The return address replaced in the calling thread's slot at {@code slot}, or 0. */
        long ownThread(long slot);

        /**
         * The return address replaced in any thread's slot at {@code slot}, as it is now (0: none):
         * for a walk of another thread's stack or of a copy, where the slot may have been reused
         * since — a guess, not exact.
         */
        long anyThread(long slot);
    }

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
        registerReturnTrampoline(address, new ReturnTrampoline() {
            @Override public long ownThread(long slot) { return originalReturn.applyAsLong(slot); }
            @Override public long anyThread(long slot) { return 0; }
        });
    }

    /** Declares {@code address} as a return trampoline that can also look at other threads' slots. */
    public void registerReturnTrampoline(long address, ReturnTrampoline trampoline) {
        returnTrampolines.put(address, trampoline);
    }

    /**
     * The return address a return trampoline replaced in the slot at {@code slot}, when {@code ra}
     * read there is a return trampoline; {@code ra} itself otherwise, or 0 when the trampoline cannot
     * tell (a slot of another thread's stack).
     */
    public long originalReturn(long ra, long slot) {
        if (returnTrampolines.isEmpty()) return ra;
        ReturnTrampoline t = returnTrampolines.get(ra);
        return t == null ? ra : t.ownThread(slot);
    }

    /** True when {@code address} is a return trampoline's ({@link #registerReturnTrampoline}). */
    public boolean isReturnTrampoline(long address) { return returnTrampolines.containsKey(address); }

    /** As {@link #originalReturn} for any thread's slot: the trampoline's current guess (0: none). */
    public long guessedReturn(long ra, long slot) {
        ReturnTrampoline t = returnTrampolines.get(ra);
        return t == null ? ra : t.anyThread(slot);
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
