package dev.bpf4j.object;

import dev.bpf4j.maps.MapType;
import dev.bpf4j.elf.ByteView;
import dev.bpf4j.elf.ElfSection;
import dev.bpf4j.elf.ElfSymbol;

import java.util.List;
import java.util.Map;

import static dev.bpf4j.runtime.LoadPhase.error;

/**
 * The legacy {@code maps} section: an array of {@code struct bpf_map_def} (type, key_size,
 * value_size, max_entries, map_flags: five u32), one per symbol. As in libbpf before 1.0, every
 * definition has the section size divided by the number of symbols, and bytes past the five known
 * fields must be zero.
 */
final class LegacyMapParser {
    private static final int KNOWN_DEF_SIZE = 20;

    private LegacyMapParser() {}

    static void parse(ObjectContext ctx) {
        if (ctx.legacyMapsIndex < 0) return;
        ElfSection sec = ctx.section(ctx.legacyMapsIndex);
        if (sec.type() == ElfSection.SHT_NOBITS) throw error("section 'maps' has no contents (SHT_NOBITS)");
        ByteView data = ctx.elf.view(sec);
        List<ElfSymbol> syms = ctx.symbolsIn(ctx.legacyMapsIndex);
        if (syms.isEmpty()) {
            if (data.length() == 0) return;
            throw error("section 'maps' has %d bytes but no map symbols", data.length());
        }
        if (data.length() == 0 || data.length() % syms.size() != 0) {
            throw error("section 'maps' size %d is not a multiple of its %d map symbols", data.length(), syms.size());
        }
        int defSize = data.length() / syms.size();
        if (defSize < 4 || defSize % 4 != 0) throw error("legacy map definitions are %d bytes each; expected a multiple of 4", defSize);
        for (ElfSymbol sym : syms) {
            String name = sym.name();
            if (sym.value() < 0 || sym.value() % 4 != 0 || !data.contains(sym.value(), defSize)) {
                throw error("map '%s': definition at offset %d (size %d) lies outside section 'maps' (%d bytes)", name, sym.value(), defSize, data.length());
            }
            long base = sym.value();
            long[] f = new long[5];
            for (int i = 0; i < 5 && i * 4 < defSize; i++) f[i] = data.u32(base + i * 4L);
            for (long p = KNOWN_DEF_SIZE; p < defSize; p += 4) {
                if (data.u32(base + p) != 0) throw error("map '%s': unrecognized non-zero bytes at offset %d of its definition", name, p);
            }
            MapType type = MapType.of(f[0]);
            if (type == null) throw error("map '%s': unknown map type %d", name, f[0]);
            for (int i = 1; i < 4; i++) {
                if (f[i] > Integer.MAX_VALUE) throw error("map '%s': field %d value %d is larger than supported", name, i, f[i]);
            }
            ctx.addMap(new MapSpec(name, "maps", type, (int) f[1], (int) f[2], (int) f[3], (int) f[4], Pinning.NONE,
                    0, 0, 0, 0, null, Map.of(), null));
            ctx.mapsByDefinition.put(new ObjectContext.Definition(ctx.legacyMapsIndex, sym.value()), name);
        }
    }
}
