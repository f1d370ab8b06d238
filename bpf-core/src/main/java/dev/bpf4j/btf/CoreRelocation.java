package dev.bpf4j.btf;

/**
 * A {@code bpf_core_relo} record of {@code .BTF.ext}: instruction {@code insnIndex} encodes a
 * property ({@link Kind}) of local BTF type {@code typeId}, reached through {@code accessString}
 * ("0:2:1": member indices), which a loader must recompute against the target kernel's BTF. Parsed
 * and kept per program; not applied yet.
 */
public record CoreRelocation(int insnIndex, int typeId, String accessString, Kind kind) {
    /** {@code enum bpf_core_relo_kind}, in kernel order. */
    public enum Kind {
        FIELD_BYTE_OFFSET, FIELD_BYTE_SIZE, FIELD_EXISTS, FIELD_SIGNED, FIELD_LSHIFT_U64, FIELD_RSHIFT_U64,
        TYPE_ID_LOCAL, TYPE_ID_TARGET, TYPE_EXISTS, TYPE_SIZE, ENUMVAL_EXISTS, ENUMVAL_VALUE, TYPE_MATCHES;

        private static final Kind[] BY_ID = values();

        public static Kind of(long id) { return id >= 0 && id < BY_ID.length ? BY_ID[(int) id] : null; }
    }

    public CoreRelocation rebase(int newIndex) { return new CoreRelocation(newIndex, typeId, accessString, kind); }
}
