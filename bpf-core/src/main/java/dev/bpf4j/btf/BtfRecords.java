package dev.bpf4j.btf;

import dev.bpf4j.runtime.BpfException;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Java records as BTF structs: a record's components match the struct's members by name (all of them,
 * anonymous members' names included); component types convert from the decoded {@link BtfValue}:
 * integers ({@code long}, {@code int}, ... — a type as wide as the member keeps its bit pattern, a
 * narrower one must hold the value), {@code boolean}, {@code double}/{@code float},
 * {@code BigInteger}, a Java enum or {@code String} for a BTF enum (by enumerator name), {@code String}
 * or {@code byte[]} for a {@code char} array, Java arrays and {@code List<X>} for arrays, nested records
 * for nested structs, and {@link BtfValue} itself. Encoding goes through {@link BtfValues#encode},
 * which takes records directly.
 */
public final class BtfRecords {
    private BtfRecords() {}

    /** Checks that {@code type}'s components and the struct/union {@code typeId}'s members have the same names, nested records too. */
    public static void check(Btf btf, int typeId, Class<?> type, String what) {
        if (!type.isRecord()) return;
        int id = btf.skipModsAndTypedefs(typeId);
        if (!(btf.type(id) instanceof BtfType.Composite c)) {
            throw new BpfException(what + ": record " + type.getSimpleName() + " needs a struct or union, the type is " + BtfValues.describe(btf, typeId));
        }
        List<String> members = new BtfValueWriter(btf).memberNames(id);
        Set<String> components = new TreeSet<>();
        for (RecordComponent rc : type.getRecordComponents()) components.add(rc.getName());
        if (!components.equals(new TreeSet<>(members))) {
            Set<String> missing = new TreeSet<>(members), extra = new TreeSet<>(components);
            missing.removeAll(components);
            extra.removeAll(members);
            throw new BpfException(what + ": record " + type.getSimpleName() + " does not match " + BtfValues.describe(btf, typeId)
                    + (missing.isEmpty() ? "" : ": no component for member(s) " + missing)
                    + (extra.isEmpty() ? "" : ": no member for component(s) " + extra));
        }
        for (BtfType.Member m : c.members()) {
            if (m.name().isEmpty()) continue;
            for (RecordComponent rc : type.getRecordComponents()) {
                if (!rc.getName().equals(m.name())) continue;
                Class<?> t = rc.getType();
                while (t.isArray()) t = t.getComponentType();
                int mid = btf.skipModsAndTypedefs(m.type());
                while (btf.type(mid) instanceof BtfType.Array a) mid = btf.skipModsAndTypedefs(a.elemType());
                check(btf, mid, t, what + "." + m.name());
            }
        }
    }

    /** Converts a decoded value to {@code type} (see the class comment); {@code path} names it in errors. */
    @SuppressWarnings("unchecked")
    public static <T> T convert(BtfValue v, Class<T> type, String path) { return (T) convert(v, type, type, path); }

    private static Object convert(BtfValue v, Class<?> type, Type generic, String path) {
        if (type.isInstance(v)) return v;
        if (type == long.class || type == Long.class) return integer(v, 64, path).longValue();
        if (type == int.class || type == Integer.class) return integer(v, 32, path).intValue();
        if (type == short.class || type == Short.class) return integer(v, 16, path).shortValue();
        if (type == byte.class || type == Byte.class) return integer(v, 8, path).byteValue();
        if (type == char.class || type == Character.class) return (char) integer(v, 16, path).intValue();
        if (type == BigInteger.class) return integer(v, 128, path);
        if (type == boolean.class || type == Boolean.class) {
            if (v instanceof BtfValue.Bool b) return b.value();
            return integer(v, 64, path).signum() != 0;
        }
        if (type == double.class || type == Double.class || type == float.class || type == Float.class) {
            if (!(v instanceof BtfValue.Float f)) throw mismatch(v, type, path);
            return type == double.class || type == Double.class ? (Object) f.value() : (Object) (float) f.value();
        }
        if (type == String.class) {
            if (v instanceof BtfValue.Str s) return s.text();
            if (v instanceof BtfValue.Enum e && e.name() != null) return e.name();
            if (v instanceof BtfValue.Array a) { // a char array that is not a printable string: the bytes up to a NUL
                byte[] b = bytes(a, path);
                int n = 0;
                while (n < b.length && b[n] != 0) n++;
                return new String(b, 0, n, StandardCharsets.ISO_8859_1);
            }
            throw mismatch(v, type, path);
        }
        if (type.isEnum()) {
            if (!(v instanceof BtfValue.Enum e)) throw mismatch(v, type, path);
            for (Object c : type.getEnumConstants()) if (((Enum<?>) c).name().equals(e.name())) return c;
            throw new BpfException(path + ": enum value " + e + " has no constant in " + type.getName()
                    + " (constants: " + Arrays.toString(type.getEnumConstants()) + ")");
        }
        if (type == byte[].class && v instanceof BtfValue.Str s) {
            byte[] out = new byte[s.capacity()];
            byte[] text = s.text().getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(text, 0, out, 0, text.length);
            return out;
        }
        if (type.isArray()) {
            List<BtfValue> elems = elements(v, type, path);
            Object out = java.lang.reflect.Array.newInstance(type.getComponentType(), elems.size());
            for (int i = 0; i < elems.size(); i++) {
                java.lang.reflect.Array.set(out, i, convert(elems.get(i), type.getComponentType(), type.getComponentType(), path + "[" + i + "]"));
            }
            return out;
        }
        if (type == List.class) {
            List<BtfValue> elems = elements(v, type, path);
            Type arg = generic instanceof ParameterizedType p ? p.getActualTypeArguments()[0] : Object.class;
            Class<?> elemType = arg instanceof Class<?> c ? c : arg instanceof ParameterizedType p ? (Class<?>) p.getRawType() : Object.class;
            List<Object> out = new ArrayList<>();
            for (int i = 0; i < elems.size(); i++) out.add(elemType == Object.class ? elems.get(i) : convert(elems.get(i), elemType, arg, path + "[" + i + "]"));
            return out;
        }
        if (type.isRecord()) return record(v, type, path);
        if (type == Object.class) return v;
        throw new BpfException(path + ": cannot convert to " + type.getName());
    }

    private static Object record(BtfValue v, Class<?> type, String path) {
        if (!(v instanceof BtfValue.Struct s)) throw mismatch(v, type, path);
        RecordComponent[] rcs = type.getRecordComponents();
        Object[] args = new Object[rcs.length];
        Class<?>[] types = new Class<?>[rcs.length];
        for (int i = 0; i < rcs.length; i++) {
            types[i] = rcs[i].getType();
            String name = rcs[i].getName();
            BtfValue mv = s.find(name).orElseThrow(() -> new BpfException(path + ": " + s.typeName() + " has no member '" + name + "' for record "
                    + type.getSimpleName()));
            args[i] = convert(mv, rcs[i].getType(), rcs[i].getGenericType(), path + "." + name);
        }
        try {
            Constructor<?> ctor = type.getDeclaredConstructor(types);
            ctor.setAccessible(true);
            return ctor.newInstance(args);
        } catch (InvocationTargetException e) {
            throw new BpfException(path + ": record " + type.getSimpleName() + " refused the value: " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new BpfException(path + ": cannot construct record " + type.getName() + ": " + e, e);
        }
    }

    /** The value as an integer that a Java type of {@code bits} bits holds: as wide gives the bit pattern, narrower must fit. */
    private static BigInteger integer(BtfValue v, int javaBits, String path) {
        BigInteger value;
        int bits;
        if (v instanceof BtfValue.Int i) { value = i.value(); bits = i.bits(); }
        else if (v instanceof BtfValue.Enum e) { value = e.signed() ? BigInteger.valueOf(e.value()) : new BigInteger(Long.toUnsignedString(e.value())); bits = e.bits(); }
        else if (v instanceof BtfValue.Char c) { value = BigInteger.valueOf(c.value()); bits = 8; }
        else if (v instanceof BtfValue.Bool b) { value = b.value() ? BigInteger.ONE : BigInteger.ZERO; bits = 1; }
        else if (v instanceof BtfValue.Ptr p) { value = new BigInteger(Long.toUnsignedString(p.address())); bits = 64; }
        else throw new BpfException(path + ": " + v.getClass().getSimpleName() + " " + v + " is not an integer");
        if (bits <= javaBits) return value;
        BigInteger min = BigInteger.ONE.shiftLeft(javaBits - 1).negate(), max = BigInteger.ONE.shiftLeft(javaBits - 1).subtract(BigInteger.ONE);
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new BpfException(path + ": " + value + " (" + bits + " bits) does not fit a Java " + javaBits + "-bit integer");
        }
        return value;
    }

    private static List<BtfValue> elements(BtfValue v, Class<?> type, String path) {
        if (v instanceof BtfValue.Array a) return a.elements();
        throw mismatch(v, type, path);
    }

    private static byte[] bytes(BtfValue.Array a, String path) {
        byte[] out = new byte[a.elements().size()];
        for (int i = 0; i < out.length; i++) out[i] = integer(a.elements().get(i), 8, path + "[" + i + "]").byteValue();
        return out;
    }

    private static BpfException mismatch(BtfValue v, Class<?> type, String path) {
        return new BpfException(path + ": " + v.getClass().getSimpleName() + " " + v + " does not convert to " + type.getSimpleName());
    }
}
