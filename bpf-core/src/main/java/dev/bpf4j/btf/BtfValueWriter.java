package dev.bpf4j.btf;

import dev.bpf4j.runtime.BpfException;

import java.lang.reflect.RecordComponent;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Encodes a Java value into the bytes of a BTF type: the inverse of {@link BtfValueReader}, with every
 * integer range-checked (see {@link BtfValues#encode} for what each type accepts). Errors name the
 * path inside the value ({@code value.addr[2]}), the type and the value that does not fit.
 */
final class BtfValueWriter {
    private final Btf btf;

    BtfValueWriter(Btf btf) { this.btf = btf; }

    byte[] write(int typeId, Object value, String path) {
        long size = btf.resolveSize(typeId);
        byte[] out = new byte[(int) size];
        write(typeId, value, out, 0, path, 0, typeId);
        return out;
    }

    private void write(int id, Object v, byte[] out, int off, String path, int depth) { write(id, v, out, off, path, depth, id); }

    /** {@code shown}: the type as declared (typedefs, modifiers), which messages name. */
    private void write(int id, Object v, byte[] out, int off, String path, int depth, int shown) {
        if (depth > Btf.MAX_RESOLVE_DEPTH * 4) throw new BpfException(path + ": BTF type #" + id + " nests too deep");
        if (v == null) throw new BpfException(path + ": null given for " + BtfValues.describe(btf, id));
        BtfType t = btf.type(id);
        if (v instanceof byte[] raw && !(t instanceof BtfType.Array)) { // raw bytes: any type, exactly its size
            long size = btf.resolveSize(id);
            if (raw.length != size) throw new BpfException(path + ": " + BtfValues.describe(btf, id) + " is " + size + " bytes, " + raw.length + " given");
            System.arraycopy(raw, 0, out, off, raw.length);
            return;
        }
        if (t instanceof BtfType.Ref r) { write(r.type(), v, out, off, path, depth + 1, shown); return; }
        if (t instanceof BtfType.Var var) { write(var.type(), v, out, off, path, depth + 1, shown); return; }
        if (t instanceof BtfType.Int i) { integer(shown, i, v, out, off, path); return; }
        if (t instanceof BtfType.Enum e) { putBits(out, off, 0, (int) e.size() * 8, enumBits(shown, e, v, (int) e.size() * 8, path)); return; }
        if (t instanceof BtfType.Ptr) { putBits(out, off, 0, 64, fit(shown, v, 64, false, path)); return; }
        if (t instanceof BtfType.Float f) { floating(f, v, out, off, path); return; }
        if (t instanceof BtfType.Composite c) { composite(id, c, v, out, off, path, depth); return; }
        if (t instanceof BtfType.Array a) { array(shown, a, v, out, off, path, depth); return; }
        if (t instanceof BtfType.Datasec s) { datasec(s, v, out, off, path, depth); return; }
        throw new BpfException(path + ": " + btf.describe(id) + " has no value to encode");
    }

    private void integer(int id, BtfType.Int i, Object v, byte[] out, int off, String path) {
        boolean signed = (i.encoding() & BtfType.Int.SIGNED) != 0;
        Object n = v;
        if ((i.encoding() & BtfType.Int.BOOL) != 0) {
            if (v instanceof Boolean b) n = b ? 1 : 0;
            else if (v instanceof BtfValue.Bool b) n = b.value() ? 1 : 0;
        }
        putBits(out, off, i.bitOffset(), i.bits(), fit(id, n, i.bits(), signed, path));
    }

    private void floating(BtfType.Float f, Object v, byte[] out, int off, String path) {
        double d;
        if (v instanceof Number num) d = num.doubleValue();
        else if (v instanceof BtfValue.Float x) d = x.value();
        else throw new BpfException(path + ": FLOAT '" + f.name() + "' needs a number, not " + kind(v));
        if (f.size() == 4) putBits(out, off, 0, 32, BigInteger.valueOf(java.lang.Float.floatToRawIntBits((float) d) & 0xffffffffL));
        else if (f.size() == 8) putBits(out, off, 0, 64, new BigInteger(Long.toUnsignedString(Double.doubleToRawLongBits(d))));
        else throw new BpfException(path + ": FLOAT '" + f.name() + "' of " + f.size() + " bytes is not supported");
    }

    /** An enum: an enumerator's name (String or Java enum constant), or a number in the enum's range. */
    private BigInteger enumBits(int id, BtfType.Enum e, Object v, int bits, String path) {
        String name = v instanceof String s ? s : v instanceof java.lang.Enum<?> je ? je.name()
                : v instanceof BtfValue.Enum be && be.name() != null ? be.name() : null;
        if (name != null) {
            for (BtfType.EnumValue ev : e.values()) {
                if (ev.name().equals(name)) return BigInteger.valueOf(ev.value()).and(mask(bits));
            }
            throw new BpfException(path + ": " + BtfValues.describe(btf, id) + " has no enumerator '" + name + "' (enumerators: "
                    + e.values().stream().map(BtfType.EnumValue::name).toList() + ")");
        }
        return fit(id, v instanceof BtfValue.Enum be ? (Object) be.value() : v, bits, e.signed(), path);
    }

    /**
     * The bit pattern of {@code v} in {@code bits} bits. A boxed Java integer exactly as wide as the target
     * gives its bit pattern (an {@code int} -1 is a u32 0xffffffff, a {@code long} fills a u64); anything
     * else must lie in the target's range.
     */
    private BigInteger fit(int id, Object v, int bits, boolean signed, String path) {
        BigInteger value;
        int javaBits;
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            value = BigInteger.valueOf(((Number) v).longValue());
            javaBits = v instanceof Long ? 64 : v instanceof Integer ? 32 : v instanceof Short ? 16 : 8;
        } else if (v instanceof BigInteger b) {
            value = b;
            javaBits = -1;
        } else if (v instanceof Character c) {
            value = BigInteger.valueOf(c);
            javaBits = -1;
        } else if (v instanceof BtfValue.Int i) {
            value = i.value();
            javaBits = i.bits();
        } else if (v instanceof BtfValue.Char c) {
            value = BigInteger.valueOf(c.value());
            javaBits = 8;
        } else if (v instanceof BtfValue.Bool b) {
            value = b.value() ? BigInteger.ONE : BigInteger.ZERO;
            javaBits = -1;
        } else if (v instanceof BtfValue.Ptr p) {
            value = BigInteger.valueOf(p.address());
            javaBits = 64;
        } else {
            throw new BpfException(path + ": " + BtfValues.describe(btf, id) + " needs an integer, not " + kind(v));
        }
        if (javaBits == bits) return value.and(mask(bits));
        BigInteger min = signed ? BigInteger.ONE.shiftLeft(bits - 1).negate() : BigInteger.ZERO;
        BigInteger max = signed ? BigInteger.ONE.shiftLeft(bits - 1).subtract(BigInteger.ONE) : mask(bits);
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new BpfException(path + ": " + value + " does not fit " + BtfValues.describe(btf, id)
                    + (bits != btf.resolveSize(id) * 8 ? " bitfield of " + bits + " bits" : "") + " (" + min + ".." + max + ")");
        }
        return value.and(mask(bits));
    }

    private void composite(int id, BtfType.Composite c, Object v, byte[] out, int off, String path, int depth) {
        Map<String, Object> given = members(id, v, path);
        Set<String> used = new LinkedHashSet<>();
        byte[] target = c.union() ? new byte[(int) c.size()] : out;
        int base = c.union() ? 0 : off;
        boolean[] covered = c.union() ? new boolean[(int) c.size()] : null;
        List<String> written = new ArrayList<>();
        for (BtfType.Member m : c.members()) {
            Object mv;
            if (m.name().isEmpty()) { // anonymous struct/union: its members are named in this value directly
                Map<String, Object> inner = new LinkedHashMap<>();
                for (String n : memberNames(m.type())) if (given.containsKey(n)) inner.put(n, given.get(n));
                if (inner.isEmpty()) continue;
                used.addAll(inner.keySet());
                mv = inner;
            } else {
                if (!given.containsKey(m.name())) continue;
                used.add(m.name());
                mv = given.get(m.name());
            }
            String p = path + (m.name().isEmpty() ? "" : "." + m.name());
            if (!c.union()) {
                member(m, mv, out, off, p, depth);
                continue;
            }
            byte[] alone = new byte[(int) c.size()]; // each union member alone, then checked against the others
            member(m, mv, alone, 0, p, depth);
            int from = (int) (m.bitOffset() / 8), to = (int) Math.min(c.size(), from + memberBytes(m));
            for (int b = from; b < to; b++) {
                if (covered[b] && target[b] != alone[b]) {
                    throw new BpfException(path + ": union '" + c.name() + "' members " + written + " and '" + m.name() + "' give different bytes");
                }
                covered[b] = true;
                target[b] = alone[b];
            }
            written.add(m.name());
        }
        Set<String> unknown = new LinkedHashSet<>(given.keySet());
        unknown.removeAll(used);
        if (!unknown.isEmpty()) {
            throw new BpfException(path + ": " + BtfValues.describe(btf, id) + " has no member " + unknown + " (members: " + memberNames(id) + ")");
        }
        if (c.union()) System.arraycopy(target, 0, out, off, target.length);
    }

    private long memberBytes(BtfType.Member m) {
        if (m.bitfieldSize() != 0) return ((m.bitOffset() % 8) + m.bitfieldSize() + 7) / 8;
        return btf.resolveSize(m.type());
    }

    private void member(BtfType.Member m, Object v, byte[] out, int off, String path, int depth) {
        int byteOff = off + (int) (m.bitOffset() / 8);
        int shift = (int) (m.bitOffset() % 8);
        if (m.bitfieldSize() == 0 && shift == 0) {
            write(m.type(), v, out, byteOff, path, depth + 1);
            return;
        }
        int baseId = btf.skipModsAndTypedefs(m.type());
        BtfType base = btf.type(baseId);
        int width = m.bitfieldSize() != 0 ? m.bitfieldSize() : base instanceof BtfType.Int i ? i.bits() : 0;
        if (width == 0) throw new BpfException(path + ": member at bit offset " + m.bitOffset() + " is not a bitfield of an integer");
        BigInteger bits;
        if (base instanceof BtfType.Enum e) bits = enumBits(m.type(), e, v, width, path);
        else bits = fit(m.type(), v, width, base instanceof BtfType.Int i && (i.encoding() & BtfType.Int.SIGNED) != 0, path);
        putBits(out, byteOff, shift, width, bits);
    }

    /** The named members of a struct/union value, from a Map, a record or a decoded {@link BtfValue.Struct}. */
    private Map<String, Object> members(int id, Object v, String path) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (v instanceof Map<?, ?> m) {
            for (Map.Entry<?, ?> e : m.entrySet()) out.put(String.valueOf(e.getKey()), e.getValue());
        } else if (v instanceof BtfValue.Struct s) { // before Record: the decoded tree's records are not user records
            flatten(s, out);
        } else if (v instanceof Record r) {
            for (RecordComponent rc : r.getClass().getRecordComponents()) {
                try {
                    java.lang.reflect.Method accessor = rc.getAccessor();
                    accessor.setAccessible(true); // records nested in test or application classes are rarely public
                    Object x = accessor.invoke(r);
                    if (x != null) out.put(rc.getName(), x);
                } catch (ReflectiveOperationException | RuntimeException e) { // RuntimeException: InaccessibleObjectException
                    throw new BpfException(path + ": cannot read component '" + rc.getName() + "' of " + r.getClass().getName() + ": " + e, e);
                }
            }
        } else {
            throw new BpfException(path + ": " + BtfValues.describe(btf, id) + " needs a Map, a record or a BtfValue.Struct, not " + kind(v));
        }
        return out;
    }

    private static void flatten(BtfValue.Struct s, Map<String, Object> out) {
        for (BtfValue.Field f : s.fields()) {
            if (f.name().isEmpty() && f.value() instanceof BtfValue.Struct inner) flatten(inner, out);
            else out.put(f.name(), f.value());
        }
    }

    /** A struct/union's member names, anonymous members' names included (as C lets one name them). */
    List<String> memberNames(int id) {
        List<String> out = new ArrayList<>();
        if (!(btf.type(btf.skipModsAndTypedefs(id)) instanceof BtfType.Composite c)) return out;
        for (BtfType.Member m : c.members()) {
            if (m.name().isEmpty()) out.addAll(memberNames(m.type()));
            else out.add(m.name());
        }
        return out;
    }

    private void array(int id, BtfType.Array a, Object v, byte[] out, int off, String path, int depth) {
        long elemSize = btf.resolveSize(a.elemType());
        if (elemSize == 1 && (v instanceof String || v instanceof BtfValue.Str || v instanceof byte[])) {
            byte[] b = v instanceof byte[] raw ? raw : v.toString().getBytes(StandardCharsets.UTF_8);
            if (b.length > a.nelems()) {
                throw new BpfException(path + ": " + BtfValues.describe(btf, id) + " holds " + a.nelems() + " bytes, " + b.length + " given");
            }
            System.arraycopy(b, 0, out, off, b.length);
            Arrays.fill(out, off + b.length, off + (int) a.nelems(), (byte) 0);
            return;
        }
        List<?> elems;
        if (v instanceof List<?> l) elems = l;
        else if (v instanceof BtfValue.Array arr) elems = arr.elements();
        else if (v.getClass().isArray()) {
            List<Object> l = new ArrayList<>();
            for (int i = 0; i < java.lang.reflect.Array.getLength(v); i++) l.add(java.lang.reflect.Array.get(v, i));
            elems = l;
        } else throw new BpfException(path + ": " + BtfValues.describe(btf, id) + " needs a List or an array, not " + kind(v));
        if (elems.size() != a.nelems()) {
            throw new BpfException(path + ": " + BtfValues.describe(btf, id) + " has " + a.nelems() + " elements, " + elems.size() + " given");
        }
        for (int i = 0; i < elems.size(); i++) write(a.elemType(), elems.get(i), out, off + (int) (i * elemSize), path + "[" + i + "]", depth + 1);
    }

    private void datasec(BtfType.Datasec s, Object v, byte[] out, int off, String path, int depth) {
        Map<String, Object> given = new LinkedHashMap<>();
        if (v instanceof BtfValue.Section sec) for (BtfValue.Field f : sec.variables()) given.put(f.name(), f.value());
        else if (v instanceof Map<?, ?> m) for (Map.Entry<?, ?> e : m.entrySet()) given.put(String.valueOf(e.getKey()), e.getValue());
        else throw new BpfException(path + ": DATASEC '" + s.name() + "' needs a Map or a BtfValue.Section, not " + kind(v));
        for (BtfType.VarSecinfo vs : s.vars()) {
            if (btf.type(vs.type()) instanceof BtfType.Var var && given.containsKey(var.name())) {
                write(var.type(), given.remove(var.name()), out, off + (int) vs.offset(), path + "." + var.name(), depth + 1);
            }
        }
        if (!given.isEmpty()) throw new BpfException(path + ": DATASEC '" + s.name() + "' has no variable " + given.keySet());
    }

    /** Writes {@code bits} bits of {@code value} at {@code shift} bits into {@code out[off]}, keeping the bits around them. */
    static void putBits(byte[] out, int off, int shift, int bits, BigInteger value) {
        int n = (shift + bits + 7) / 8;
        BigInteger old = BtfValueReader.unsigned(out, off, n * 8, 0);
        BigInteger fieldMask = mask(bits).shiftLeft(shift);
        BigInteger merged = old.andNot(fieldMask).or(value.shiftLeft(shift).and(fieldMask));
        for (int i = 0; i < n; i++) out[off + i] = merged.shiftRight(8 * i).byteValue();
    }

    private static BigInteger mask(int bits) { return BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE); }

    private static String kind(Object v) { return v.getClass().getSimpleName() + " " + v; }
}
