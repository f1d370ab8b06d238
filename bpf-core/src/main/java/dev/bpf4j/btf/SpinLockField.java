package dev.bpf4j.btf;

import java.util.HashMap;
import java.util.Map;

import static dev.bpf4j.runtime.LoadPhase.error;

/**
 * Finds the {@code struct bpf_spin_lock} of a map value type, as the kernel's {@code btf_parse_fields}
 * does for {@code BPF_SPIN_LOCK}: a member whose type (modifiers and typedefs skipped) is the 4-byte
 * struct of that name, searched through nested structs (not unions or arrays); at most one per value, at a
 * 4-byte aligned offset.
 */
public final class SpinLockField {
    private SpinLockField() {}

    /** The {@code struct bpf_spin_lock} of every value holding one. */
    public static final String NAME = "bpf_spin_lock";

    /** The byte offset of the value's spin lock, or -1 when it has none (or is not a struct). */
    public static int offset(Btf btf, int valueTypeId, String mapName) {
        if (btf == null || valueTypeId == 0) return -1;
        return (int) find(btf, btf.skipModsAndTypedefs(valueTypeId), mapName, 0, new HashMap<>());
    }

    /**
     * The lock's offset inside struct {@code id}, or -1. Each type is searched once ({@code memo}: its answer
     * does not depend on where it sits), so a type reached through many members costs once: without it a
     * mutated BTF whose structs nest one another through several members each took exponential time.
     * A type reached again while it is being searched (a cycle, which the kernel refuses) holds no lock.
     */
    private static long find(Btf btf, int id, String mapName, int depth, Map<Integer, Long> memo) {
        if (!(btf.type(id) instanceof BtfType.Composite c) || c.union() || depth > Btf.MAX_RESOLVE_DEPTH) return -1;
        Long known = memo.get(id);
        if (known != null) return known;
        memo.put(id, -1L);
        long found = -1;
        for (BtfType.Member m : c.members()) {
            int t = btf.skipModsAndTypedefs(m.type());
            long at;
            if (btf.type(t) instanceof BtfType.Composite s && !s.union() && s.name().equals(NAME)) {
                if (s.size() != 4) throw error("map '%s': struct bpf_spin_lock is %d bytes, not 4", mapName, s.size());
                if (m.bitfieldSize() != 0 || m.bitOffset() % 32 != 0) {
                    throw error("map '%s': bpf_spin_lock member '%s' is not 4-byte aligned", mapName, m.name());
                }
                at = m.bitOffset() / 8;
            } else {
                long inner = m.bitOffset() % 8 == 0 ? find(btf, t, mapName, depth + 1, memo) : -1;
                at = inner < 0 ? -1 : m.bitOffset() / 8 + inner;
            }
            if (at < 0) continue;
            if (found >= 0) throw error("map '%s': the value type has more than one bpf_spin_lock (the kernel: E2BIG)", mapName);
            found = at;
        }
        memo.put(id, found);
        return found;
    }
}
