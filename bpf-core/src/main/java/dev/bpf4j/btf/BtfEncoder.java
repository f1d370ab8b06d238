package dev.bpf4j.btf;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Writes a {@link Btf} back in the {@code .BTF} layout of {@code include/uapi/linux/btf.h} (little-endian,
 * same type ids, a fresh string section), so a loader can hand the object's BTF — after libbpf's fixups,
 * e.g. DATASEC sizes and offsets — to the kernel's {@code BPF_BTF_LOAD}.
 */
public final class BtfEncoder {
    private final ByteArrayOutputStream types = new ByteArrayOutputStream();
    private final ByteArrayOutputStream strings = new ByteArrayOutputStream();
    private final Map<String, Integer> stringOffsets = new HashMap<>();

    private BtfEncoder() {
        strings.write(0);
        stringOffsets.put("", 0);
    }

    public static byte[] encode(Btf btf) {
        BtfEncoder e = new BtfEncoder();
        for (int id = 1; id < btf.typeCount(); id++) e.type(btf.type(id));
        byte[] t = e.types.toByteArray(), s = e.strings.toByteArray();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        u16(out, BtfParser.MAGIC);
        out.write(1); // version
        out.write(0); // flags
        u32(out, 24); // hdr_len
        u32(out, 0);
        u32(out, t.length);
        u32(out, t.length);
        u32(out, s.length);
        out.writeBytes(t);
        out.writeBytes(s);
        return out.toByteArray();
    }

    private int str(String s) {
        return stringOffsets.computeIfAbsent(s, k -> {
            int off = strings.size();
            strings.writeBytes(k.getBytes(StandardCharsets.UTF_8));
            strings.write(0);
            return off;
        });
    }

    private void head(String name, BtfKind kind, boolean kflag, int vlen, long sizeOrType) {
        u32(types, str(name));
        u32(types, (kflag ? 1 << 31 : 0) | kind.id << 24 | vlen);
        u32(types, sizeOrType);
    }

    private void type(BtfType t) {
        if (t instanceof BtfType.Int i) {
            head(i.name(), BtfKind.INT, false, 0, i.size());
            u32(types, i.encoding() << 24 | i.bitOffset() << 16 | i.bits());
        } else if (t instanceof BtfType.Ptr p) {
            head("", BtfKind.PTR, false, 0, p.type());
        } else if (t instanceof BtfType.Array a) {
            head("", BtfKind.ARRAY, false, 0, 0);
            u32(types, a.elemType());
            u32(types, a.indexType());
            u32(types, a.nelems());
        } else if (t instanceof BtfType.Composite c) {
            boolean kflag = c.members().stream().anyMatch(m -> m.bitfieldSize() != 0);
            head(c.name(), c.kind(), kflag, c.members().size(), c.size());
            for (BtfType.Member m : c.members()) {
                u32(types, str(m.name()));
                u32(types, m.type());
                u32(types, kflag ? (long) m.bitfieldSize() << 24 | m.bitOffset() : m.bitOffset());
            }
        } else if (t instanceof BtfType.Enum e) {
            head(e.name(), e.kind(), e.signed(), e.values().size(), e.size());
            for (BtfType.EnumValue v : e.values()) {
                u32(types, str(v.name()));
                u32(types, v.value());
                if (e.enum64()) u32(types, v.value() >>> 32);
            }
        } else if (t instanceof BtfType.Fwd f) {
            head(f.name(), BtfKind.FWD, f.union(), 0, 0);
        } else if (t instanceof BtfType.Ref r) {
            head(r.name(), r.kind(), false, 0, r.type());
        } else if (t instanceof BtfType.Func f) {
            head(f.name(), BtfKind.FUNC, false, f.linkage(), f.type());
        } else if (t instanceof BtfType.FuncProto p) {
            head("", BtfKind.FUNC_PROTO, false, p.params().size(), p.returnType());
            for (BtfType.Param q : p.params()) {
                u32(types, str(q.name()));
                u32(types, q.type());
            }
        } else if (t instanceof BtfType.Var v) {
            head(v.name(), BtfKind.VAR, false, 0, v.type());
            u32(types, v.linkage());
        } else if (t instanceof BtfType.Datasec d) {
            head(d.name(), BtfKind.DATASEC, false, d.vars().size(), d.size());
            for (BtfType.VarSecinfo v : d.vars()) {
                u32(types, v.type());
                u32(types, v.offset());
                u32(types, v.size());
            }
        } else if (t instanceof BtfType.Float f) {
            head(f.name(), BtfKind.FLOAT, false, 0, f.size());
        } else if (t instanceof BtfType.DeclTag d) {
            head(d.name(), BtfKind.DECL_TAG, false, 0, d.type());
            u32(types, d.componentIdx());
        } else {
            throw new IllegalArgumentException("cannot encode BTF type " + t);
        }
    }

    private static void u16(ByteArrayOutputStream o, int v) {
        o.write(v);
        o.write(v >>> 8);
    }

    private static void u32(ByteArrayOutputStream o, long v) {
        for (int i = 0; i < 4; i++) o.write((int) (v >>> (8 * i)));
    }
}
