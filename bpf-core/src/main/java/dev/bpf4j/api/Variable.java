package dev.bpf4j.api;

import dev.bpf4j.btf.Btf;
import dev.bpf4j.btf.BtfRecords;
import dev.bpf4j.btf.BtfValue;
import dev.bpf4j.btf.BtfValues;
import dev.bpf4j.maps.ArrayMap;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.maps.MapFlags;
import dev.bpf4j.object.GlobalVariable;
import dev.bpf4j.runtime.BpfException;
import dev.bpf4j.runtime.NativeMemory;

import java.util.Arrays;

/**
 * A global variable of a loaded object, read and written in place in its section's map, as a libbpf
 * skeleton's field or cilium's {@code Variable.Get/Set}: by its BTF type ({@link BtfValues#encode} says
 * what each type takes; values that do not fit are a {@link BpfException} naming the variable, its
 * type and the value). A write touches only the variable's bytes, so programs updating its neighbours
 * meanwhile lose nothing. {@code .rodata} is frozen at load (programs may have relied on its values):
 * writes to it are refused.
 */
public final class Variable {
    private final GlobalVariable v;
    private final Btf btf;
    private final BpfMap map;

    Variable(GlobalVariable v, Btf btf, BpfMap map) {
        this.v = v;
        this.btf = btf;
        this.map = map;
    }

    public String name() { return v.name(); }

    /** The ELF section: {@code .data}, {@code .bss}, {@code .rodata}, {@code .data.custom}, ... */
    public String section() { return v.section(); }

    /** Its C type, e.g. {@code __u32} or {@code struct config}. */
    public String type() { return BtfValues.describe(btf, v.typeId()); }

    public int size() { return v.size(); }

    /** True when writes are refused (frozen {@code .rodata}). */
    public boolean isReadOnly() { return map.isFrozen() || (map.definition().flags() & MapFlags.BPF_F_RDONLY) != 0; }

    /** The current bytes. */
    public byte[] bytes() {
        byte[] all = map.lookup(new byte[4]).orElseThrow(() -> new BpfException(what() + ": its map has no value"));
        return Arrays.copyOfRange(all, v.offset(), v.offset() + v.size());
    }

    /** The current value decoded by its type. */
    public BtfValue get() { return BtfValues.decode(btf, v.typeId(), bytes(), 0); }

    /** The current value as {@code type}: a record for a struct, {@code long}, {@code String} for a char array... */
    public <T> T get(Class<T> type) {
        BtfRecords.check(btf, v.typeId(), type, what());
        return BtfRecords.convert(get(), type, what());
    }

    /** An integer or enum variable's value ({@code u64} keeps its bit pattern). */
    public long getLong() { return get().asLong(); }

    /** Writes {@code value}, range-checked against the variable's type. */
    public void set(Object value) {
        if (btf.resolveSize(v.typeId()) != v.size()) {
            throw new BpfException(what() + ": its BTF type is " + btf.resolveSize(v.typeId()) + " bytes, the variable " + v.size());
        }
        byte[] bytes = BtfValues.encode(btf, v.typeId(), value, what());
        if (isReadOnly()) {
            throw new BpfException(what() + ": " + v.section() + " is " + (map.isFrozen() ? "frozen after load" : "BPF_F_RDONLY")
                    + "; set it before load with OpenObject.variable");
        }
        if (!(map instanceof ArrayMap a) || bytes.length != v.size()) throw new BpfException(what() + ": not an in-place global (" + map.describe() + ")");
        NativeMemory.write(a.elementAddress(0, 0) + v.offset(), bytes, 0, bytes.length);
    }

    /** {@link #set(Object)} for an integer or enum: {@code 1L << 40} into a u32 is refused, not truncated. */
    public void set(long value) { set((Object) value); }

    private String what() { return "variable '" + v.name() + "' (" + type() + " in " + v.section() + ")"; }

    @Override public String toString() { return what(); }
}
