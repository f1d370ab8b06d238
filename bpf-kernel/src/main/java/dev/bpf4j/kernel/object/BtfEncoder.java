package dev.bpf4j.kernel.object;

import dev.bpf4j.btf.Btf;
import dev.bpf4j.btf.BtfKind;
import dev.bpf4j.btf.BtfType;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Writes a parsed {@link Btf} back into the raw layout BPF_BTF_LOAD takes (include/uapi/linux/btf.h:
 * {@code struct btf_header}, the types, the string section), with the same type ids. The object
 * loader's fixups (DATASEC sizes and variable offsets, as libbpf's {@code btf_fixup_datasec}) are
 * already in the model, which is why the ELF's {@code .BTF} bytes cannot be passed as they are: the
 * kernel refuses a DATASEC of size 0. Strings are written afresh (deduplicated); {@link #stringOffset}
 * gives the offset of any string added, e.g. for line_info file and line names.
 */
final class BtfEncoder {
    private static final int MAGIC = 0xeB9F, HEADER_LEN = 24;

    private final ByteArrayOutputStream strings = new ByteArrayOutputStream();
    private final Map<String, Integer> stringOffsets = new HashMap<>();
    private final ByteArrayOutputStream types = new ByteArrayOutputStream();

    BtfEncoder(Btf btf) {
        strings.write(0);
        stringOffsets.put("", 0);
        for (int id = 1; id < btf.typeCount(); id++) write(btf.type(id));
    }

    /** The string's offset in the string section, adding it when new. */
    int stringOffset(String s) {
        Integer off = stringOffsets.get(s);
        if (off != null) return off;
        off = strings.size();
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        strings.write(b, 0, b.length);
        strings.write(0);
        stringOffsets.put(s, off);
        return off;
    }

    /** The whole BTF blob; strings asked for through {@link #stringOffset} before this call are in it. */
    byte[] bytes() {
        byte[] t = types.toByteArray(), s = strings.toByteArray();
        ByteBuffer b = ByteBuffer.allocate(HEADER_LEN + t.length + s.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort((short) MAGIC).put((byte) 1).put((byte) 0).putInt(HEADER_LEN);
        b.putInt(0).putInt(t.length).putInt(t.length).putInt(s.length);
        return b.put(t).put(s).array();
    }

    private void header(String name, BtfKind kind, boolean kflag, int vlen, long sizeOrType) {
        u32(stringOffset(name));
        u32((kflag ? 1L << 31 : 0) | (long) kind.id << 24 | vlen);
        u32(sizeOrType);
    }

    private void u32(long v) {
        for (int i = 0; i < 4; i++) types.write((int) (v >>> (8 * i)));
    }

    private void write(BtfType t) {
        if (t instanceof BtfType.Int x) {
            header(x.name(), BtfKind.INT, false, 0, x.size());
            u32((long) x.encoding() << 24 | (long) x.bitOffset() << 16 | x.bits());
        } else if (t instanceof BtfType.Ptr x) {
            header("", BtfKind.PTR, false, 0, x.type());
        } else if (t instanceof BtfType.Array x) {
            header("", BtfKind.ARRAY, false, 0, 0);
            u32(x.elemType());
            u32(x.indexType());
            u32(x.nelems());
        } else if (t instanceof BtfType.Composite x) {
            boolean bitfields = x.members().stream().anyMatch(m -> m.bitfieldSize() != 0);
            header(x.name(), x.kind(), bitfields, x.members().size(), x.size());
            for (BtfType.Member m : x.members()) {
                u32(stringOffset(m.name()));
                u32(m.type());
                u32(bitfields ? (long) m.bitfieldSize() << 24 | m.bitOffset() : m.bitOffset());
            }
        } else if (t instanceof BtfType.Enum x) {
            header(x.name(), x.kind(), x.signed(), x.values().size(), x.size());
            for (BtfType.EnumValue v : x.values()) {
                u32(stringOffset(v.name()));
                u32(v.value());
                if (x.enum64()) u32(v.value() >>> 32);
            }
        } else if (t instanceof BtfType.Fwd x) {
            header(x.name(), BtfKind.FWD, x.union(), 0, 0);
        } else if (t instanceof BtfType.Ref x) {
            header(x.name(), x.kind(), false, 0, x.type());
        } else if (t instanceof BtfType.Func x) {
            header(x.name(), BtfKind.FUNC, false, x.linkage(), x.type());
        } else if (t instanceof BtfType.FuncProto x) {
            header("", BtfKind.FUNC_PROTO, false, x.params().size(), x.returnType());
            for (BtfType.Param p : x.params()) {
                u32(stringOffset(p.name()));
                u32(p.type());
            }
        } else if (t instanceof BtfType.Var x) {
            header(x.name(), BtfKind.VAR, false, 0, x.type());
            u32(x.linkage());
        } else if (t instanceof BtfType.Datasec x) {
            header(x.name(), BtfKind.DATASEC, false, x.vars().size(), x.size());
            for (BtfType.VarSecinfo v : x.vars()) {
                u32(v.type());
                u32(v.offset());
                u32(v.size());
            }
        } else if (t instanceof BtfType.Float x) {
            header(x.name(), BtfKind.FLOAT, false, 0, x.size());
        } else if (t instanceof BtfType.DeclTag x) {
            header(x.name(), BtfKind.DECL_TAG, false, 0, x.type());
            u32(x.componentIdx());
        } else {
            throw new IllegalArgumentException("BTF type " + t + " cannot be encoded");
        }
    }
}
