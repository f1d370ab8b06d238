package dev.bpf4j.asm;

import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.HelperSpec;

import java.util.HashMap;
import java.util.Map;

/**
 * Names the assembler may meet besides labels: helper names in {@code call bpf_map_lookup_elem} and
 * map names in {@code lddw r1, map_by_fd(array_map)} (newer bpf_conformance tests use both). Each
 * method returns null for an unknown name.
 */
public interface AsmSymbols {
    /** The helper id for {@code name}, or null. */
    Integer helper(String name);

    /** The number standing for map {@code name} in {@code map_by_fd(...)} / {@code map_by_idx(...)}, or null. */
    Integer map(String name);

    /** No names at all: only numeric helper ids and map numbers assemble. */
    AsmSymbols NONE = of(Map.of(), Map.of());

    static AsmSymbols of(Map<String, Integer> helpers, Map<String, Integer> maps) {
        Map<String, Integer> h = Map.copyOf(helpers), m = Map.copyOf(maps);
        return new AsmSymbols() {
            @Override public Integer helper(String name) { return h.get(name); }
            @Override public Integer map(String name) { return m.get(name); }
        };
    }

    /** Helper names from a registry (by their kernel names) and the given map numbers. */
    static AsmSymbols of(HelperRegistry helpers, Map<String, Integer> maps) {
        Map<String, Integer> h = new HashMap<>();
        for (HelperSpec s : helpers.all()) h.put(s.name(), s.id());
        return of(h, maps);
    }
}
