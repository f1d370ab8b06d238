package dev.bpf4j.verifier;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The kernel's {@code check_map_func_compatibility} for the map types bpf4j implements: which helpers a map of
 * each type may be passed to, and which map types each map-specific helper takes. A map whose type the verifier
 * does not know (type 0) is left to the helper's run-time check.
 */
final class MapFuncCompat {
    private MapFuncCompat() {}

    private static final int HASH = 1, ARRAY = 2, PROG_ARRAY = 3, PERF_EVENT_ARRAY = 4, PERCPU_HASH = 5, PERCPU_ARRAY = 6,
            STACK_TRACE = 7, LRU_HASH = 9, LRU_PERCPU_HASH = 10, ARRAY_OF_MAPS = 12, HASH_OF_MAPS = 13, DEVMAP = 14,
            CPUMAP = 16, XSKMAP = 17, QUEUE = 22, STACK = 23, DEVMAP_HASH = 25, RINGBUF = 27, BLOOM_FILTER = 30;

    private static final Set<String> RINGBUF_FUNCS = Set.of("bpf_ringbuf_output", "bpf_ringbuf_reserve", "bpf_ringbuf_query",
            "bpf_ringbuf_reserve_dynptr", "bpf_ringbuf_submit_dynptr", "bpf_ringbuf_discard_dynptr");
    private static final Set<String> PERF_FUNCS = Set.of("bpf_perf_event_read", "bpf_perf_event_output", "bpf_perf_event_read_value",
            "bpf_skb_output", "bpf_xdp_output");

    /** The map-type side: the only helpers a map of this type may be passed to (absent: any). */
    private static final Map<Integer, Set<String>> BY_MAP = Map.ofEntries(
            Map.entry(PROG_ARRAY, Set.of("bpf_tail_call")),
            Map.entry(PERF_EVENT_ARRAY, PERF_FUNCS),
            Map.entry(RINGBUF, RINGBUF_FUNCS),
            Map.entry(STACK_TRACE, Set.of("bpf_get_stackid")),
            Map.entry(DEVMAP, Set.of("bpf_redirect_map", "bpf_map_lookup_elem")),
            Map.entry(DEVMAP_HASH, Set.of("bpf_redirect_map", "bpf_map_lookup_elem")),
            Map.entry(CPUMAP, Set.of("bpf_redirect_map")),
            Map.entry(XSKMAP, Set.of("bpf_redirect_map", "bpf_map_lookup_elem")),
            Map.entry(ARRAY_OF_MAPS, Set.of("bpf_map_lookup_elem")),
            Map.entry(HASH_OF_MAPS, Set.of("bpf_map_lookup_elem")),
            Map.entry(QUEUE, Set.of("bpf_map_peek_elem", "bpf_map_pop_elem", "bpf_map_push_elem")),
            Map.entry(STACK, Set.of("bpf_map_peek_elem", "bpf_map_pop_elem", "bpf_map_push_elem")),
            Map.entry(BLOOM_FILTER, Set.of("bpf_map_peek_elem", "bpf_map_push_elem")));

    /** The helper side: the only map types a map-specific helper takes (absent: any). */
    private static final Map<String, Set<Integer>> BY_FUNC;
    static {
        HashMap<String, Set<Integer>> m = new HashMap<>();
        m.put("bpf_tail_call", Set.of(PROG_ARRAY));
        for (String f : PERF_FUNCS) m.put(f, Set.of(PERF_EVENT_ARRAY));
        for (String f : RINGBUF_FUNCS) m.put(f, Set.of(RINGBUF));
        m.put("bpf_get_stackid", Set.of(STACK_TRACE));
        m.put("bpf_redirect_map", Set.of(DEVMAP, DEVMAP_HASH, CPUMAP, XSKMAP));
        m.put("bpf_map_pop_elem", Set.of(QUEUE, STACK));
        m.put("bpf_map_peek_elem", Set.of(QUEUE, STACK, BLOOM_FILTER));
        m.put("bpf_map_push_elem", Set.of(QUEUE, STACK, BLOOM_FILTER));
        m.put("bpf_map_lookup_percpu_elem", Set.of(PERCPU_ARRAY, PERCPU_HASH, LRU_PERCPU_HASH));
        BY_FUNC = Map.copyOf(m);
    }

    /** Null when a map of {@code mapType} may be passed to {@code func}, else Linux's refusal. */
    static String refusal(int mapType, String func, int funcId) {
        if (mapType == 0) return null;
        // record_func_map refuses it before check_map_func_compatibility (the kernel's log has no newline there)
        if (func.equals("bpf_tail_call") && mapType != PROG_ARRAY) return "expected prog array map for tail call";
        Set<String> funcs = BY_MAP.get(mapType);
        Set<Integer> types = BY_FUNC.get(func);
        if ((funcs == null || funcs.contains(func)) && (types == null || types.contains(mapType))) return null;
        return "cannot pass map_type " + mapType + " into func " + func + "#" + funcId;
    }
}
