package dev.bpf4j.btf;

import dev.bpf4j.elf.ByteView;
import dev.bpf4j.elf.StringTable;

import java.util.ArrayList;
import java.util.List;

import static dev.bpf4j.btf.Btf.bad;

/** Reads the {@code .BTF} layout of {@code include/uapi/linux/btf.h}: header, type section, string section. */
final class BtfParser {
    static final int MAGIC = 0xeb9f;
    private static final int HEADER_SIZE = 24, TYPE_SIZE = 12;
    /** The kernel's BTF_MAX_TYPE. */
    private static final int MAX_TYPES = 0xfffff;

    private final ByteView types;
    private final StringTable strings;
    private final List<BtfType> out = new ArrayList<>();

    private BtfParser(ByteView types, StringTable strings) {
        this.types = types;
        this.strings = strings;
    }

    static Btf parse(ByteView data) {
        if (data.length() < HEADER_SIZE) throw bad(".BTF is %d bytes, shorter than its header", data.length());
        int magic = data.u16(0);
        if (magic != MAGIC) throw bad(".BTF magic 0x%04x is not 0xeb9f (big-endian BTF is not supported)", magic);
        int version = data.u8(2);
        if (version != 1) throw bad(".BTF version %d is not 1", version);
        long hdrLen = data.u32(4);
        if (hdrLen < HEADER_SIZE || hdrLen > data.length()) throw bad(".BTF header length %d is invalid (section is %d bytes)", hdrLen, data.length());
        long typeOff = data.u32(8), typeLen = data.u32(12), strOff = data.u32(16), strLen = data.u32(20);
        long meta = data.length() - hdrLen;
        if (typeOff % 4 != 0) throw bad(".BTF type section offset %d is not 4-byte aligned", typeOff);
        if (typeOff > meta || typeLen > meta - typeOff) throw bad(".BTF type section (offset %d, length %d) extends past the data (%d bytes)", typeOff, typeLen, meta);
        if (strOff > meta || strLen > meta - strOff) throw bad(".BTF string section (offset %d, length %d) extends past the data (%d bytes)", strOff, strLen, meta);
        if (strLen == 0 || data.u8(hdrLen + strOff) != 0 || data.u8(hdrLen + strOff + strLen - 1) != 0) {
            throw bad(".BTF string section must start and end with a NUL byte");
        }
        BtfParser p = new BtfParser(data.slice(hdrLen + typeOff, typeLen, ".BTF types"),
                new StringTable(data.slice(hdrLen + strOff, strLen, ".BTF strings")));
        p.readTypes();
        p.checkReferences();
        return new Btf(p.out, p.strings);
    }

    private String name(long off, int id) {
        return off == 0 ? "" : strings.get(off, "name of type #" + id);
    }

    private void readTypes() {
        out.add(new BtfType.Void());
        long pos = 0;
        while (pos < types.length()) {
            int id = out.size();
            if (id > MAX_TYPES) throw bad(".BTF has more than %d types", MAX_TYPES);
            if (!types.contains(pos, TYPE_SIZE)) throw bad(".BTF type #%d at offset %d is truncated", id, pos);
            long nameOff = types.u32(pos);
            int info = types.s32(pos + 4);
            int sizeOrType = types.s32(pos + 8);
            pos += TYPE_SIZE;
            int vlen = info & 0xffff;
            int kindId = (info >>> 24) & 0x1f;
            boolean kflag = info < 0;
            BtfKind kind = BtfKind.of(kindId);
            if (kind == null || kind == BtfKind.UNKN) throw bad(".BTF type #%d has unknown kind %d", id, kindId);
            long extra = extraSize(kind, vlen);
            if (!types.contains(pos, extra)) throw bad(".BTF type #%d (%s, vlen %d) extends past the type section", id, kind, vlen);
            String name = name(nameOff, id);
            out.add(read(kind, name, kflag, vlen, sizeOrType, pos, id));
            pos += extra;
        }
    }

    private static long extraSize(BtfKind kind, int vlen) {
        switch (kind) {
            case INT: case VAR: case DECL_TAG: return 4;
            case ARRAY: return 12;
            case STRUCT: case UNION: case DATASEC: case ENUM64: return 12L * vlen;
            case ENUM: case FUNC_PROTO: return 8L * vlen;
            default: return 0;
        }
    }

    private BtfType read(BtfKind kind, String name, boolean kflag, int vlen, int sizeOrType, long p, int id) {
        long size = sizeOrType & 0xffffffffL;
        switch (kind) {
            case INT: {
                int enc = types.s32(p);
                int bits = enc & 0xff;
                if (size > 16 || bits > size * 8) throw bad(".BTF type #%d: INT '%s' of size %d with %d bits is invalid", id, name, size, bits);
                return new BtfType.Int(name, (int) size, (enc >>> 24) & 0xf, (enc >>> 16) & 0xff, bits);
            }
            case PTR: return new BtfType.Ptr(sizeOrType);
            case ARRAY: return new BtfType.Array(types.s32(p), types.s32(p + 4), types.u32(p + 8));
            case STRUCT: case UNION: {
                List<BtfType.Member> members = new ArrayList<>(vlen);
                for (int i = 0; i < vlen; i++, p += 12) {
                    long off = types.u32(p + 8);
                    members.add(new BtfType.Member(name(types.u32(p), id), types.s32(p + 4),
                            kflag ? off & 0xffffff : off, kflag ? (int) (off >>> 24) : 0));
                }
                return new BtfType.Composite(name, kind == BtfKind.UNION, size, members);
            }
            case ENUM: {
                List<BtfType.EnumValue> values = new ArrayList<>(vlen);
                for (int i = 0; i < vlen; i++, p += 8) {
                    int v = types.s32(p + 4);
                    values.add(new BtfType.EnumValue(name(types.u32(p), id), kflag ? v : v & 0xffffffffL));
                }
                return new BtfType.Enum(name, false, kflag, size, values);
            }
            case ENUM64: {
                List<BtfType.EnumValue> values = new ArrayList<>(vlen);
                for (int i = 0; i < vlen; i++, p += 12) {
                    values.add(new BtfType.EnumValue(name(types.u32(p), id), types.u32(p + 4) | types.u32(p + 8) << 32));
                }
                return new BtfType.Enum(name, true, kflag, size, values);
            }
            case FWD: return new BtfType.Fwd(name, kflag);
            case TYPEDEF: case VOLATILE: case CONST: case RESTRICT: case TYPE_TAG:
                return new BtfType.Ref(kind, name, sizeOrType);
            case FUNC: return new BtfType.Func(name, sizeOrType, vlen);
            case FUNC_PROTO: {
                List<BtfType.Param> params = new ArrayList<>(vlen);
                for (int i = 0; i < vlen; i++, p += 8) params.add(new BtfType.Param(name(types.u32(p), id), types.s32(p + 4)));
                return new BtfType.FuncProto(sizeOrType, params);
            }
            case VAR: return new BtfType.Var(name, sizeOrType, types.s32(p));
            case DATASEC: {
                List<BtfType.VarSecinfo> vars = new ArrayList<>(vlen);
                for (int i = 0; i < vlen; i++, p += 12) vars.add(new BtfType.VarSecinfo(types.s32(p), types.u32(p + 4), types.u32(p + 8)));
                return new BtfType.Datasec(name, size, vars);
            }
            case FLOAT: return new BtfType.Float(name, sizeOrType);
            case DECL_TAG: return new BtfType.DeclTag(name, sizeOrType, types.s32(p));
            default: throw bad(".BTF type #%d has unsupported kind %s", id, kind);
        }
    }

    /** Every type id a type mentions must exist: later lookups then never go out of range. */
    private void checkReferences() {
        for (int id = 1; id < out.size(); id++) {
            BtfType t = out.get(id);
            if (t instanceof BtfType.Ptr x) ref(id, x.type());
            else if (t instanceof BtfType.Array x) { ref(id, x.elemType()); ref(id, x.indexType()); }
            else if (t instanceof BtfType.Composite x) for (BtfType.Member m : x.members()) ref(id, m.type());
            else if (t instanceof BtfType.Ref x) ref(id, x.type());
            else if (t instanceof BtfType.Func x) ref(id, x.type());
            else if (t instanceof BtfType.FuncProto x) { ref(id, x.returnType()); for (BtfType.Param q : x.params()) ref(id, q.type()); }
            else if (t instanceof BtfType.Var x) ref(id, x.type());
            else if (t instanceof BtfType.Datasec x) for (BtfType.VarSecinfo v : x.vars()) ref(id, v.type());
            else if (t instanceof BtfType.DeclTag x) ref(id, x.type());
        }
    }

    private void ref(int from, int to) {
        if (to < 0 || to >= out.size()) throw bad(".BTF type #%d refers to type #%d, but there are %d types", from, to & 0xffffffffL, out.size());
    }
}
