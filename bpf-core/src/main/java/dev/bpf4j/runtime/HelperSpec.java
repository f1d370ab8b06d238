package dev.bpf4j.runtime;

import java.util.Objects;

/** A helper as a program sees it: its id (the imm of {@code call}), its kernel name and its Java body. */
public record HelperSpec(int id, String name, Helper body) {
    public HelperSpec {
        Objects.requireNonNull(name);
        Objects.requireNonNull(body);
    }
}
