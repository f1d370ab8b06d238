package dev.bpf4j.maps;

import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Process-wide map ids, as the kernel's {@code map_idr}: a map gets one the first time someone asks for it
 * ({@link BpfMap#id()}), ids are never reused, and a closed map's id finds nothing. Map-in-map values are
 * these ids (bpf4j has no file descriptors: the id stands in for the fd an update passes).
 */
final class MapIds {
    private MapIds() {}

    private static final AtomicInteger NEXT = new AtomicInteger();
    private static final ConcurrentHashMap<Integer, BpfMap> LIVE = new ConcurrentHashMap<>();

    static int register(BpfMap map) {
        int id = NEXT.incrementAndGet();
        if (id <= 0) throw new BpfMapException(Errno.ENOSPC, "no map ids left");
        LIVE.put(id, map);
        return id;
    }

    static void unregister(int id) { LIVE.remove(id); }

    static Optional<BpfMap> find(int id) { return Optional.ofNullable(LIVE.get(id)); }
}
