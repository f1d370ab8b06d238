package dev.bpf4j.btf;

/** The {@code BTF_KIND_*} values of {@code include/uapi/linux/btf.h}. */
public enum BtfKind {
    UNKN(0), INT(1), PTR(2), ARRAY(3), STRUCT(4), UNION(5), ENUM(6), FWD(7), TYPEDEF(8), VOLATILE(9),
    CONST(10), RESTRICT(11), FUNC(12), FUNC_PROTO(13), VAR(14), DATASEC(15), FLOAT(16), DECL_TAG(17),
    TYPE_TAG(18), ENUM64(19);

    private static final BtfKind[] BY_ID = values();

    public final int id;

    BtfKind(int id) { this.id = id; }

    /** The kind with this number, or null when the number is not a known kind. */
    public static BtfKind of(int id) { return id >= 0 && id < BY_ID.length ? BY_ID[id] : null; }
}
