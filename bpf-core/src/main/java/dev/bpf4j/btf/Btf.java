package dev.bpf4j.btf;

import dev.bpf4j.elf.ByteView;
import dev.bpf4j.runtime.LoadPhase;
import dev.bpf4j.elf.StringTable;
import dev.bpf4j.runtime.BpfLoadException;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static dev.bpf4j.runtime.LoadPhase.error;

/**
 * Parsed {@code .BTF}: its types (index = type id, id 0 is void) and its string section. Every
 * type id a type refers to has been checked to exist, so the lookups here only fail on cycles or
 * chains deeper than libbpf accepts.
 */
public final class Btf {
    /** libbpf's MAX_RESOLVE_DEPTH: longest chain of modifiers/typedefs/arrays followed. */
    public static final int MAX_RESOLVE_DEPTH = 32;

    private final List<BtfType> types;
    private final StringTable strings;

    /** First type id of each (kind, name), so lookups by name do not scan every type. */
    private final Map<String, Integer> byKindAndName = new HashMap<>();

    Btf(List<BtfType> types, StringTable strings) {
        this.types = List.copyOf(types);
        this.strings = strings;
        for (int i = 1; i < this.types.size(); i++) {
            BtfType t = this.types.get(i);
            if (!t.name().isEmpty()) byKindAndName.putIfAbsent(t.kind() + "\0" + t.name(), i);
        }
    }

    /** Parses the contents of a {@code .BTF} section. */
    public static Btf parse(byte[] data) { return parse(ByteView.of(data, ".BTF")); }

    public static Btf parse(ByteView data) { return LoadPhase.guard(() -> BtfParser.parse(data)); }

    /** A copy with some types replaced (same ids, same strings): how loaders apply libbpf's fixups. */
    public Btf withTypes(Map<Integer, BtfType> replacements) {
        java.util.List<BtfType> copy = new java.util.ArrayList<>(types);
        replacements.forEach((id, t) -> {
            type(id);
            if (t.kind() != types.get(id).kind()) throw error("BTF type #%d: replacement changes kind %s to %s", id, types.get(id).kind(), t.kind());
            copy.set(id, t);
        });
        return new Btf(copy, strings);
    }

    /** All types; index 0 is {@link BtfType.Void}. */
    public List<BtfType> types() { return types; }

    public int typeCount() { return types.size(); }

    public BtfType type(int id) {
        if (id < 0 || id >= types.size()) throw error("BTF type id %d out of range (BTF has %d types)", id, types.size());
        return types.get(id);
    }

    /** The string at {@code offset} of the string section (as {@code .BTF.ext} file names and lines use). */
    public String string(long offset) { return LoadPhase.guard(() -> strings.get(offset, "BTF string")); }

    /** A readable name of a type for messages: "STRUCT 'value' (#22)". */
    public String describe(int id) {
        BtfType t = type(id);
        return t.kind() + (t.name().isEmpty() ? "" : " '" + t.name() + "'") + " (#" + id + ")";
    }

    /** Follows TYPEDEF, VOLATILE, CONST, RESTRICT and TYPE_TAG to the underlying type id. */
    public int skipModsAndTypedefs(int id) {
        for (int depth = 0; depth <= MAX_RESOLVE_DEPTH; depth++) {
            if (!(type(id) instanceof BtfType.Ref r)) return id;
            id = r.type();
        }
        throw error("BTF type #%d: chain of typedefs and modifiers deeper than %d", id, MAX_RESOLVE_DEPTH);
    }

    /** The size in bytes of a type, as libbpf's {@code btf__resolve_size}. */
    public long resolveSize(int id) {
        long nelems = 1;
        int start = id;
        for (int depth = 0; depth <= MAX_RESOLVE_DEPTH; depth++) {
            BtfType t = type(id);
            long size;
            if (t instanceof BtfType.Int i) size = i.size();
            else if (t instanceof BtfType.Composite c) size = c.size();
            else if (t instanceof BtfType.Enum e) size = e.size();
            else if (t instanceof BtfType.Datasec d) size = d.size();
            else if (t instanceof BtfType.Float f) size = f.size();
            else if (t instanceof BtfType.Ptr) size = 8;
            else if (t instanceof BtfType.Ref r) { id = r.type(); continue; }
            else if (t instanceof BtfType.Var v) { id = v.type(); continue; }
            else if (t instanceof BtfType.Array a) {
                if (a.nelems() != 0 && nelems > Integer.MAX_VALUE / a.nelems()) throw error("BTF type #%d: array size overflows", start);
                nelems *= a.nelems();
                id = a.elemType();
                continue;
            } else throw error("BTF type %s has no size", describe(id));
            if (size != 0 && nelems > Integer.MAX_VALUE / size) throw error("BTF type #%d: size overflows", start);
            return nelems * size;
        }
        throw error("BTF type #%d: type chain deeper than %d", start, MAX_RESOLVE_DEPTH);
    }

    /** The DATASEC of this name ({@code .maps}, {@code .data}, ...), if any. */
    public Optional<BtfType.Datasec> datasec(String name) {
        int id = find(BtfKind.DATASEC, name);
        return id < 0 ? Optional.empty() : Optional.of((BtfType.Datasec) types.get(id));
    }

    /** The id of the first type of this kind and name, or -1. */
    public int find(BtfKind kind, String name) {
        return byKindAndName.getOrDefault(kind + "\0" + name, -1);
    }

    static BpfLoadException bad(String format, Object... args) { return error(format, args); }
}
