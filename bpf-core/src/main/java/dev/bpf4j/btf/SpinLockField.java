package dev.bpf4j.btf;

import static dev.bpf4j.object.LoadPhase.error;

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
        long found = find(btf, btf.skipModsAndTypedefs(valueTypeId), 0, mapName, 0);
        return (int) found;
    }

    private static long find(Btf btf, int id, long base, String mapName, int depth) {
        if (!(btf.type(id) instanceof BtfType.Composite c) || c.union() || depth > Btf.MAX_RESOLVE_DEPTH) return -1;
        long found = -1;
        for (BtfType.Member m : c.members()) {
            int t = btf.skipModsAndTypedefs(m.type());
            long at;
            if (btf.type(t) instanceof BtfType.Composite s && !s.union() && s.name().equals(NAME)) {
                if (s.size() != 4) throw error("map '%s': struct bpf_spin_lock is %d bytes, not 4", mapName, s.size());
                if (m.bitfieldSize() != 0 || m.bitOffset() % 32 != 0) {
                    throw error("map '%s': bpf_spin_lock member '%s' is not 4-byte aligned", mapName, m.name());
                }
                at = base + m.bitOffset() / 8;
            } else {
                at = m.bitOffset() % 8 == 0 ? find(btf, t, base + m.bitOffset() / 8, mapName, depth + 1) : -1;
            }
            if (at < 0) continue;
            if (found >= 0) throw error("map '%s': the value type has more than one bpf_spin_lock (the kernel: E2BIG)", mapName);
            found = at;
        }
        return found;
    }
}
