package dev.bpf4j.btf;

import dev.bpf4j.runtime.BpfException;

import java.nio.charset.StandardCharsets;

/**
 * Values by BTF type, both ways: what a typed map view and a global variable use.
 *
 * <p>{@link #encode} accepts, per type: an integer: {@code Long}, {@code Integer}, {@code Short},
 * {@code Byte}, {@code BigInteger}, {@code Character} (a {@code _Bool} also {@code Boolean}), range-checked
 * — a boxed Java integer exactly as wide as the type is taken as its bit pattern ({@code -1} fills a
 * u32 from an {@code int}, a u64 from a {@code long}); an enum: an enumerator's name, a Java enum
 * constant of that name, or a number; a struct: a {@code Map<String, ?>} or a record (members by name,
 * missing members zero), a union: the same with one member, or several that agree; an array: a
 * {@code List} or Java array of exactly its length, a {@code char}/byte array also a {@code String} or
 * {@code byte[]} no longer than it (NUL-padded); a float: any {@code Number}; any type: a
 * {@code byte[]} of exactly its size; and everything {@link #decode} returns. Values that do not fit
 * are a {@link BpfException} naming where, the type and the value.
 */
public final class BtfValues {
    private BtfValues() {}

    /** Decodes the value of type {@code typeId} at {@code offset} of {@code data}. */
    public static BtfValue decode(Btf btf, int typeId, byte[] data, int offset) { return new BtfValueReader(btf).read(typeId, data, offset); }

    /** The bytes of {@code value} as type {@code typeId}; {@code what} names it in errors ("map 'flows' key"). */
    public static byte[] encode(Btf btf, int typeId, Object value, String what) { return new BtfValueWriter(btf).write(typeId, value, what); }

    /** A C-like name of a type for messages: {@code __u32}, {@code struct flow_key}, {@code char[16]}. */
    public static String describe(Btf btf, int id) { return describe(btf, id, 0); }

    private static String describe(Btf btf, int id, int depth) {
        if (depth > Btf.MAX_RESOLVE_DEPTH) return "...";
        BtfType t = btf.type(id);
        if (t instanceof BtfType.Ref r) {
            if (r.kind() == BtfKind.TYPEDEF) return r.name();
            if (r.kind() == BtfKind.TYPE_TAG) return describe(btf, r.type(), depth + 1);
            return r.kind().name().toLowerCase() + " " + describe(btf, r.type(), depth + 1);
        }
        if (t instanceof BtfType.Composite c) return (c.union() ? "union " : "struct ") + (c.name().isEmpty() ? "(anonymous)" : c.name());
        if (t instanceof BtfType.Enum e) return "enum " + (e.name().isEmpty() ? "(anonymous)" : e.name());
        if (t instanceof BtfType.Array a) return describe(btf, a.elemType(), depth + 1) + "[" + a.nelems() + "]";
        if (t instanceof BtfType.Ptr p) return describe(btf, p.type(), depth + 1) + " *";
        if (t instanceof BtfType.Var v) return describe(btf, v.type(), depth + 1);
        if (t instanceof BtfType.Datasec s) return "DATASEC " + s.name();
        if (t instanceof BtfType.Void) return "void";
        return t.name().isEmpty() ? btf.describe(id) : t.name();
    }

    /**
     * bpftool's is_str_array test on the bytes: printable characters up to a NUL within {@code length}
     * bytes; the string before the NUL, or null when the bytes are not such a string.
     */
    static String printableString(byte[] d, int off, int length) {
        for (int i = 0; i < length; i++) {
            byte b = d[off + i];
            if (b == 0) return new String(d, off, i, StandardCharsets.US_ASCII);
            if (b <= 0x1f || b >= 0x7f) return null;
        }
        return null;
    }
}
