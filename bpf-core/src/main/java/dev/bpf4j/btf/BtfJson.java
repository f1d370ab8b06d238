package dev.bpf4j.btf;

import java.math.BigInteger;

/**
 * A {@link BtfValue} as JSON, written the way bpftool's {@code btf_dumper} writes {@code formatted}
 * values in {@code bpftool map dump -j}: decimal integers, bitfields and integers of other widths
 * (128-bit, odd INT widths) as {@code "0x.."} strings, enums by enumerator name (else the value
 * sign-extended, as bpftool reads it), {@code char} strings as strings, structs and unions as objects
 * with every member, a DATASEC as {@code {"name": [{"var": value}, ...]}}. Floats, which bpftool
 * refuses, are written as JSON numbers.
 */
public final class BtfJson {
    private BtfJson() {}

    public static String write(BtfValue v) {
        StringBuilder b = new StringBuilder();
        write(v, b);
        return b.toString();
    }

    public static void write(BtfValue v, StringBuilder b) {
        if (v instanceof BtfValue.Int i) {
            if (i.bitfield() || (i.bits() != 8 && i.bits() != 16 && i.bits() != 32 && i.bits() != 64)) {
                b.append("\"0x").append(i.value().and(BigInteger.ONE.shiftLeft(i.bits()).subtract(BigInteger.ONE)).toString(16)).append('"');
            } else {
                b.append(i.value());
            }
        } else if (v instanceof BtfValue.Bool x) {
            b.append(x.value());
        } else if (v instanceof BtfValue.Char c) {
            if (c.value() >= 0x20 && c.value() < 0x7f) string(String.valueOf((char) c.value()), b);
            else b.append(String.format("\"\\u00%02x\"", c.value() & 0xff));
        } else if (v instanceof BtfValue.Enum e) {
            if (e.bitfield()) b.append("\"0x").append(Long.toHexString(e.bits() >= 64 ? e.value() : e.value() & ((1L << e.bits()) - 1))).append('"');
            else if (e.name() != null) string(e.name(), b);
            else b.append(e.bits() >= 64 ? e.value() : e.value() << (64 - e.bits()) >> (64 - e.bits()));
        } else if (v instanceof BtfValue.Ptr p) {
            b.append(Long.toUnsignedString(p.address()));
        } else if (v instanceof BtfValue.Float f) {
            b.append(Double.isFinite(f.value()) ? Double.toString(f.value()) : "\"" + f.value() + "\"");
        } else if (v instanceof BtfValue.Str s) {
            string(s.text(), b);
        } else if (v instanceof BtfValue.Array a) {
            b.append('[');
            for (int i = 0; i < a.elements().size(); i++) {
                if (i > 0) b.append(", ");
                write(a.elements().get(i), b);
            }
            b.append(']');
        } else if (v instanceof BtfValue.Struct s) {
            b.append('{');
            fields(s.fields(), b);
            b.append('}');
        } else if (v instanceof BtfValue.Section s) {
            b.append('{');
            string(s.name(), b);
            b.append(": [");
            for (int i = 0; i < s.variables().size(); i++) {
                if (i > 0) b.append(", ");
                b.append('{');
                fields(s.variables().subList(i, i + 1), b);
                b.append('}');
            }
            b.append("]}");
        }
    }

    private static void fields(java.util.List<BtfValue.Field> fields, StringBuilder b) {
        for (int i = 0; i < fields.size(); i++) {
            if (i > 0) b.append(", ");
            string(fields.get(i).name(), b);
            b.append(": ");
            write(fields.get(i).value(), b);
        }
    }

    /** A JSON string (control characters as {@code \\u00XX}; BTF names and strings are printable ASCII). */
    public static void string(String s, StringBuilder b) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        b.append('"');
    }
}
