package dev.bpf4j.btf;

import dev.bpf4j.runtime.BpfException;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes little-endian bytes by a BTF type into a {@link BtfValue}, walking the type as bpftool's
 * {@code btf_dumper} does (same choices: bitfields, {@code char} strings, enum names).
 */
final class BtfValueReader {
    private final Btf btf;

    BtfValueReader(Btf btf) { this.btf = btf; }

    BtfValue read(int typeId, byte[] data, int off) {
        long size = btf.resolveSize(typeId);
        if (off < 0 || off > data.length || data.length - off < size) {
            throw new BpfException(BtfValues.describe(btf, typeId) + " is " + size + " bytes, " + Math.max(0, data.length - off) + " given");
        }
        return value(typeId, data, off, 0);
    }

    private BtfValue value(int id, byte[] d, int off, int depth) {
        if (depth > Btf.MAX_RESOLVE_DEPTH * 4) throw new BpfException("BTF type #" + id + " nests deeper than " + Btf.MAX_RESOLVE_DEPTH * 4);
        BtfType t = btf.type(id);
        if (t instanceof BtfType.Ref r) return value(r.type(), d, off, depth + 1);
        if (t instanceof BtfType.Var v) return value(v.type(), d, off, depth + 1);
        if (t instanceof BtfType.Int i) return integer(i, d, off);
        if (t instanceof BtfType.Enum e) return enumValue(e, unsigned(d, off, (int) e.size() * 8, 0), (int) e.size() * 8, false);
        if (t instanceof BtfType.Ptr) return new BtfValue.Ptr(unsigned(d, off, 64, 0).longValue());
        if (t instanceof BtfType.Float f) {
            if (f.size() == 4) return new BtfValue.Float(java.lang.Float.intBitsToFloat(unsigned(d, off, 32, 0).intValue()));
            if (f.size() == 8) return new BtfValue.Float(Double.longBitsToDouble(unsigned(d, off, 64, 0).longValue()));
            throw new BpfException("FLOAT '" + f.name() + "' of " + f.size() + " bytes is not supported");
        }
        if (t instanceof BtfType.Composite c) return composite(c, d, off, depth);
        if (t instanceof BtfType.Array a) return array(a, d, off, depth);
        if (t instanceof BtfType.Datasec s) {
            List<BtfValue.Field> vars = new ArrayList<>();
            for (BtfType.VarSecinfo v : s.vars()) {
                if (btf.type(v.type()) instanceof BtfType.Var var) vars.add(new BtfValue.Field(var.name(), value(var.type(), d, off + (int) v.offset(), depth + 1)));
            }
            return new BtfValue.Section(s.name(), vars);
        }
        throw new BpfException(btf.describe(id) + " has no value to decode");
    }

    private BtfValue integer(BtfType.Int i, byte[] d, int off) {
        if ((i.encoding() & BtfType.Int.BOOL) != 0) return new BtfValue.Bool(unsigned(d, off, i.size() * 8, 0).signum() != 0);
        if ((i.encoding() & BtfType.Int.CHAR) != 0 && i.size() == 1) return new BtfValue.Char(d[off]);
        BigInteger v = unsigned(d, off, i.bits(), i.bitOffset());
        boolean signed = (i.encoding() & BtfType.Int.SIGNED) != 0;
        return new BtfValue.Int(signed ? signExtend(v, i.bits()) : v, i.bits(), signed, false);
    }

    private BtfValue enumValue(BtfType.Enum e, BigInteger raw, int bits, boolean bitfield) {
        long value = (e.signed() ? signExtend(raw, bits) : raw).longValue();
        long mask = bits >= 64 ? -1L : (1L << bits) - 1;
        for (BtfType.EnumValue ev : e.values()) {
            if ((ev.value() & mask) == (value & mask)) return new BtfValue.Enum(ev.name(), value, bits, e.signed(), bitfield);
        }
        return new BtfValue.Enum(null, value, bits, e.signed(), bitfield);
    }

    private BtfValue composite(BtfType.Composite c, byte[] d, int off, int depth) {
        List<BtfValue.Field> fields = new ArrayList<>();
        for (BtfType.Member m : c.members()) {
            int byteOff = off + (int) (m.bitOffset() / 8);
            int shift = (int) (m.bitOffset() % 8);
            BtfValue v;
            if (m.bitfieldSize() != 0 || shift != 0) {
                v = bitfield(m, d, byteOff, shift);
            } else {
                v = value(m.type(), d, byteOff, depth + 1);
            }
            fields.add(new BtfValue.Field(m.name(), v));
        }
        return new BtfValue.Struct(c.name(), c.union(), fields);
    }

    /** A bitfield member: {@code bitfieldSize} bits (or the INT's own width) starting {@code shift} bits into {@code byteOff}. */
    private BtfValue bitfield(BtfType.Member m, byte[] d, int byteOff, int shift) {
        BtfType base = btf.type(btf.skipModsAndTypedefs(m.type()));
        int width = m.bitfieldSize() != 0 ? m.bitfieldSize() : base instanceof BtfType.Int i ? i.bits() : 0;
        if (width == 0) throw new BpfException("member '" + m.name() + "' at bit offset " + m.bitOffset() + " is not a bitfield of an integer");
        BigInteger raw = unsigned(d, byteOff, width, shift);
        if (base instanceof BtfType.Enum e) return enumValue(e, raw, width, true);
        boolean signed = base instanceof BtfType.Int i && (i.encoding() & BtfType.Int.SIGNED) != 0;
        return new BtfValue.Int(signed ? signExtend(raw, width) : raw, width, signed, true);
    }

    private BtfValue array(BtfType.Array a, byte[] d, int off, int depth) {
        long elemSize = btf.resolveSize(a.elemType());
        if (isCharArray(a)) {
            String s = BtfValues.printableString(d, off, (int) a.nelems());
            if (s != null) return new BtfValue.Str(s, (int) a.nelems());
        }
        List<BtfValue> out = new ArrayList<>((int) Math.min(a.nelems(), 1 << 16));
        for (long i = 0; i < a.nelems(); i++) out.add(value(a.elemType(), d, off + (int) (i * elemSize), depth + 1));
        return new BtfValue.Array(out);
    }

    /** bpftool's is_str_array: the element is a 1-byte {@code char} INT (modifiers skipped, typedefs not). */
    boolean isCharArray(BtfType.Array a) {
        int id = a.elemType();
        for (int i = 0; i <= Btf.MAX_RESOLVE_DEPTH && btf.type(id) instanceof BtfType.Ref r && r.kind() != BtfKind.TYPEDEF; i++) id = r.type();
        return a.nelems() > 0 && btf.type(id) instanceof BtfType.Int i && i.size() == 1
                && ((i.encoding() & BtfType.Int.CHAR) != 0 || i.name().equals("char"));
    }

    /** {@code bits} bits starting {@code shift} bits into {@code d[off]}, little-endian, as an unsigned number. */
    static BigInteger unsigned(byte[] d, int off, int bits, int shift) {
        int n = (shift + bits + 7) / 8;
        byte[] be = new byte[n + 1]; // big-endian with a leading zero byte: never negative
        for (int i = 0; i < n; i++) be[n - i] = d[off + i];
        return new BigInteger(be).shiftRight(shift).and(BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE));
    }

    static BigInteger signExtend(BigInteger v, int bits) {
        return v.testBit(bits - 1) ? v.subtract(BigInteger.ONE.shiftLeft(bits)) : v;
    }
}
