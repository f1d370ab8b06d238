package dev.bpf4j.object;

/** libbpf's {@code enum libbpf_pin_type}, the {@code pinning} field of a BTF map definition. */
public enum Pinning {
    NONE, BY_NAME;

    public static Pinning of(long value) {
        if (value == 0) return NONE;
        if (value == 1) return BY_NAME;
        return null;
    }
}
