package dev.bpf4j.runtime;

import java.util.Objects;

/**
 * A helper as a program sees it: its id (the imm of {@code call}), its kernel name and its Java body;
 * {@code arrayLookup}, when not null, says where a JIT may inline the helper (see {@link ArrayLookupInlining}).
 */
public record HelperSpec(int id, String name, Helper body, ArrayLookupInlining arrayLookup) {
    public HelperSpec {
        Objects.requireNonNull(name);
        Objects.requireNonNull(body);
    }

    public HelperSpec(int id, String name, Helper body) { this(id, name, body, null); }
}
