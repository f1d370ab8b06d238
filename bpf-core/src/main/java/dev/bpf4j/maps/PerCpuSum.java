package dev.bpf4j.maps;

import dev.bpf4j.btf.BtfValue;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * A per-CPU value summed over the CPUs, member by member: what a counter map means to its reader.
 * Integers (bitfields too) add up and wrap at their width as the C counter would; floats add up;
 * every other leaf (enum, bool, string, pointer) is CPU 0's.
 */
public final class PerCpuSum {
    private PerCpuSum() {}

    public static BtfValue sum(List<BtfValue> perCpu) {
        BtfValue acc = perCpu.get(0);
        for (int i = 1; i < perCpu.size(); i++) acc = add(acc, perCpu.get(i));
        return acc;
    }

    private static BtfValue add(BtfValue a, BtfValue b) {
        if (a instanceof BtfValue.Int x && b instanceof BtfValue.Int y) {
            BigInteger s = x.value().add(y.value()).and(BigInteger.ONE.shiftLeft(x.bits()).subtract(BigInteger.ONE));
            if (x.signed() && s.testBit(x.bits() - 1)) s = s.subtract(BigInteger.ONE.shiftLeft(x.bits()));
            return new BtfValue.Int(s, x.bits(), x.signed(), x.bitfield());
        }
        if (a instanceof BtfValue.Float x && b instanceof BtfValue.Float y) return new BtfValue.Float(x.value() + y.value());
        if (a instanceof BtfValue.Struct x && b instanceof BtfValue.Struct y) {
            List<BtfValue.Field> out = new ArrayList<>();
            for (int i = 0; i < x.fields().size(); i++) {
                out.add(new BtfValue.Field(x.fields().get(i).name(), add(x.fields().get(i).value(), y.fields().get(i).value())));
            }
            return new BtfValue.Struct(x.typeName(), x.union(), out);
        }
        if (a instanceof BtfValue.Array x && b instanceof BtfValue.Array y) {
            List<BtfValue> out = new ArrayList<>();
            for (int i = 0; i < x.elements().size(); i++) out.add(add(x.elements().get(i), y.elements().get(i)));
            return new BtfValue.Array(out);
        }
        return a;
    }
}
