package dev.bpf4j.verifier;

import dev.bpf4j.runtime.MapShapes;

/**
 * Linux 6.18's {@code get_constant_map_key} and {@code can_elide_value_nullness}: a
 * {@code bpf_map_lookup_elem} on an ARRAY or PERCPU_ARRAY map whose key the verifier knows, and
 * which is below {@code max_entries}, cannot fail, so it returns a map value pointer that needs no
 * null check. The key is known when its bytes are STACK_ZERO from its first byte (0), or when they
 * are exactly the spilled bytes of a constant scalar (the spilled register's value, as Linux reads
 * it, whatever the key's place in the slot).
 */
final class ConstMapKey {
    private ConstMapKey() {}

    private static final int ARRAY = 2, PERCPU_ARRAY = 6;

    /** True when the lookup of {@code key} in {@code map} ({@code shape}) always finds an element. */
    static boolean alwaysFound(VerifierState st, MapShapes.Shape shape, RegState key) {
        if (shape == null || (shape.mapType() != ARRAY && shape.mapType() != PERCPU_ARRAY) || shape.maxEntries() <= 0) return false;
        long k = value(st, key, shape.keySize());
        return k >= 0 && k < shape.maxEntries();
    }

    /** The key's value, or -1 when it is not known. */
    static long value(VerifierState st, RegState key, int keySize) {
        if (key == null || key.type != RegType.PTR_TO_STACK || !key.isConst() || keySize <= 0) return -1;
        FuncState frame = st.frames.get(key.frameno);
        int first = FuncState.byteIndex(key.off + key.smin), slotEnd = (first & ~7) + 8;
        int zeros = 0;
        for (int i = first; i < slotEnd && frame.stack[i] == FuncState.STACK_ZERO; i++) zeros++;
        if (zeros >= keySize) return 0;
        int slot = first >> 3;
        RegState spilled = frame.spilled[slot];
        if (frame.stack[slot * 8] != FuncState.STACK_SPILL || spilled == null || spilled.type != RegType.SCALAR) return -1;
        int spills = 0;
        for (int i = first; i < slotEnd && frame.stack[i] == FuncState.STACK_SPILL; i++) spills++;
        if (spills != keySize || spilled.tnum.mask() != 0) return -1;
        return spilled.tnum.value();
    }
}
