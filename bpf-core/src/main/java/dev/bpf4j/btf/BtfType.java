package dev.bpf4j.btf;

import java.util.List;

/**
 * One BTF type, as {@code include/uapi/linux/btf.h} lays it out. References to other types are
 * type ids ({@code 0} is void); {@link Btf} resolves them. Names are resolved strings ({@code ""}
 * for anonymous types).
 */
public sealed interface BtfType {
    String name();

    BtfKind kind();

    /** {@code BTF_KIND_INT}: size in bytes, encoding flags (signed, char, bool), bit offset and width. */
    record Int(String name, int size, int encoding, int bitOffset, int bits) implements BtfType {
        public static final int SIGNED = 1, CHAR = 2, BOOL = 4;
        public BtfKind kind() { return BtfKind.INT; }
    }

    record Ptr(int type) implements BtfType {
        public String name() { return ""; }
        public BtfKind kind() { return BtfKind.PTR; }
    }

    record Array(int elemType, int indexType, long nelems) implements BtfType {
        public String name() { return ""; }
        public BtfKind kind() { return BtfKind.ARRAY; }
    }

    /** A struct or union member; {@code bitOffset} from the start, {@code bitfieldSize} 0 unless a bitfield. */
    record Member(String name, int type, long bitOffset, int bitfieldSize) {}

    /** {@code BTF_KIND_STRUCT} or {@code BTF_KIND_UNION}. */
    record Composite(String name, boolean union, long size, List<Member> members) implements BtfType {
        public Composite { members = List.copyOf(members); }
        public BtfKind kind() { return union ? BtfKind.UNION : BtfKind.STRUCT; }
    }

    record EnumValue(String name, long value) {}

    /** {@code BTF_KIND_ENUM} (32-bit values) or {@code BTF_KIND_ENUM64}. */
    record Enum(String name, boolean enum64, boolean signed, long size, List<EnumValue> values) implements BtfType {
        public Enum { values = List.copyOf(values); }
        public BtfKind kind() { return enum64 ? BtfKind.ENUM64 : BtfKind.ENUM; }
    }

    record Fwd(String name, boolean union) implements BtfType {
        public BtfKind kind() { return BtfKind.FWD; }
    }

    /** TYPEDEF, VOLATILE, CONST, RESTRICT and TYPE_TAG: a (possibly named) reference to another type. */
    record Ref(BtfKind kind, String name, int type) implements BtfType {}

    /** {@code BTF_KIND_FUNC}; {@code linkage} is 0 static, 1 global, 2 extern; {@code type} is its FUNC_PROTO. */
    record Func(String name, int type, int linkage) implements BtfType {
        public BtfKind kind() { return BtfKind.FUNC; }
    }

    record Param(String name, int type) {}

    record FuncProto(int returnType, List<Param> params) implements BtfType {
        public FuncProto { params = List.copyOf(params); }
        public String name() { return ""; }
        public BtfKind kind() { return BtfKind.FUNC_PROTO; }
    }

    /** {@code BTF_KIND_VAR}; {@code linkage} is 0 static, 1 global allocated, 2 extern. */
    record Var(String name, int type, int linkage) implements BtfType {
        public static final int STATIC = 0, GLOBAL = 1, EXTERN = 2;
        public BtfKind kind() { return BtfKind.VAR; }
    }

    /** One variable of a DATASEC: its VAR (or FUNC) type id, offset and size inside the section. */
    record VarSecinfo(int type, long offset, long size) {}

    /**
     * {@code BTF_KIND_DATASEC}. In an object straight from clang the size and offsets are still 0;
     * the loader fills them in from the ELF section and symbols, as libbpf does.
     */
    record Datasec(String name, long size, List<VarSecinfo> vars) implements BtfType {
        public Datasec { vars = List.copyOf(vars); }
        public BtfKind kind() { return BtfKind.DATASEC; }
    }

    record Float(String name, int size) implements BtfType {
        public BtfKind kind() { return BtfKind.FLOAT; }
    }

    /** {@code BTF_KIND_DECL_TAG}: a tag on a type, or on member/parameter {@code componentIdx} (-1: the type itself). */
    record DeclTag(String name, int type, int componentIdx) implements BtfType {
        public BtfKind kind() { return BtfKind.DECL_TAG; }
    }

    /** Type id 0. */
    record Void() implements BtfType {
        public String name() { return "void"; }
        public BtfKind kind() { return BtfKind.UNKN; }
    }
}
