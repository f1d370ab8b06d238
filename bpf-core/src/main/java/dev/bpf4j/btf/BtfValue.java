package dev.bpf4j.btf;

import dev.bpf4j.runtime.BpfException;

import java.math.BigInteger;
import java.util.List;
import java.util.Optional;

/**
 * A map key, map value or global variable decoded by its BTF type ({@link BtfValues#decode}): a tree
 * of integers, enums, structs/unions, arrays and strings, the shape {@code bpftool map dump} prints
 * under {@code formatted}. Typedefs and modifiers are gone; anonymous struct/union members keep the
 * name {@code ""} and {@link #get(String)} looks through them, as C member access does.
 */
public sealed interface BtfValue {
    /** The member of this struct or union (looking through anonymous members). */
    default BtfValue get(String member) {
        throw new BpfException("value " + this + " is not a struct or union: no member '" + member + "'");
    }

    /** The element of this array. */
    default BtfValue get(int index) { throw new BpfException("value " + this + " is not an array: no element " + index); }

    /** This integer, enum, bool, char or pointer as a {@code long} (u64 values keep their bit pattern). */
    default long asLong() { throw new BpfException("value " + this + " is not a number"); }

    /**
     * An integer of {@code bits} bits ({@code bits} is the bitfield width for a bitfield member).
     * {@code value} is the exact value: never negative for unsigned types.
     */
    record Int(BigInteger value, int bits, boolean signed, boolean bitfield) implements BtfValue {
        public Int { if (bits < 1 || bits > 128) throw new IllegalArgumentException("bits " + bits); }
        @Override public long asLong() { return value.longValue(); }
        @Override public String toString() { return value.toString(); }
    }

    /** A {@code _Bool} (BTF_INT_BOOL). */
    record Bool(boolean value) implements BtfValue {
        @Override public long asLong() { return value ? 1 : 0; }
        @Override public String toString() { return Boolean.toString(value); }
    }

    /** A BTF_INT_CHAR integer (clang emits plain {@code char} as a signed INT instead). */
    record Char(byte value) implements BtfValue {
        @Override public long asLong() { return value; }
    }

    /**
     * An enum value of {@code bits} bits; {@code name} is the enumerator's name, or null when no
     * enumerator has this value; {@code bitfield} when it is a bitfield member.
     */
    record Enum(String name, long value, int bits, boolean signed, boolean bitfield) implements BtfValue {
        @Override public long asLong() { return value; }
        @Override public String toString() { return name != null ? name : signed ? Long.toString(value) : Long.toUnsignedString(value); }
    }

    /** A pointer's value (an address in the program's memory). */
    record Ptr(long address) implements BtfValue {
        @Override public long asLong() { return address; }
    }

    /** A {@code float} or {@code double}. */
    record Float(double value) implements BtfValue {}

    /** One member of a struct or union; {@code name} is {@code ""} for an anonymous member. */
    record Field(String name, BtfValue value) {}

    /** A struct or union with every member in declaration order (for a union: every view of the same bytes). */
    record Struct(String typeName, boolean union, List<Field> fields) implements BtfValue {
        public Struct { fields = List.copyOf(fields); }

        @Override public BtfValue get(String member) {
            return find(member).orElseThrow(() -> new BpfException((union ? "union" : "struct") + " '" + typeName
                    + "' has no member '" + member + "' (members: " + fields.stream().map(Field::name).toList() + ")"));
        }

        /** The member of this name, looking through anonymous struct/union members. */
        public Optional<BtfValue> find(String member) {
            for (Field f : fields) {
                if (f.name().equals(member)) return Optional.of(f.value());
                if (f.name().isEmpty() && f.value() instanceof Struct inner) {
                    Optional<BtfValue> v = inner.find(member);
                    if (v.isPresent()) return v;
                }
            }
            return Optional.empty();
        }
    }

    /** An array's elements. */
    record Array(List<BtfValue> elements) implements BtfValue {
        public Array { elements = List.copyOf(elements); }

        @Override public BtfValue get(int index) {
            if (index < 0 || index >= elements.size()) throw new BpfException("index " + index + " outside array of " + elements.size());
            return elements.get(index);
        }
    }

    /**
     * A {@code char} array holding a NUL-terminated printable string (bpftool's {@code is_str_array});
     * {@code capacity} is the array's length. Other char arrays decode as {@link Array}.
     */
    record Str(String text, int capacity) implements BtfValue {
        @Override public String toString() { return text; }
    }

    /** A DATASEC (a global-data map's value): its variables, static ones included, by offset. */
    record Section(String name, List<Field> variables) implements BtfValue {
        public Section { variables = List.copyOf(variables); }

        @Override public BtfValue get(String variable) {
            return variables.stream().filter(f -> f.name().equals(variable)).map(Field::value).findFirst()
                    .orElseThrow(() -> new BpfException("section '" + name + "' has no variable '" + variable + "'"));
        }
    }
}
