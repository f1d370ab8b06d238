package dev.bpf4j.object;

import dev.bpf4j.btf.Btf;
import dev.bpf4j.btf.BtfExt;
import dev.bpf4j.elf.ElfFile;
import dev.bpf4j.elf.ElfSection;
import dev.bpf4j.elf.ElfSymbol;
import dev.bpf4j.runtime.LoadPhase;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** What the load phases learn about one object and hand to the next phase. Package-private, mutable while loading. */
final class ObjectContext {
    final ElfFile elf;
    final String objectName;
    String license = "";
    int kernelVersion;
    Btf btf;
    BtfExt btfExt = BtfExt.empty();

    /** Section indices of the special sections, -1 when absent. */
    int textIndex = -1, legacyMapsIndex = -1, btfMapsIndex = -1;

    /** Maps in definition order, by name. */
    final Map<String, MapSpec> maps = new LinkedHashMap<>();
    /** Where a map is defined: section index and byte offset of its definition in .maps or maps. */
    record Definition(int section, long offset) {}

    /** For maps defined in .maps/maps: where the definition is, to the map name. */
    final Map<Definition, String> mapsByDefinition = new HashMap<>();
    /** For global-data sections: section index to the internal map name. */
    final Map<Integer, String> dataMaps = new HashMap<>();
    /** .kconfig externs: name to offset inside the .kconfig map value. */
    final Map<String, Integer> kconfigOffsets = new HashMap<>();
    String kconfigMapName;

    /** The decoded {@code .text} section, when it has functions. */
    CodeSection text;
    /** Every function of every code section, sorted by (section index, offset). */
    final List<Function> functions = new ArrayList<>();

    ObjectContext(ElfFile elf, String objectName) {
        this.elf = elf;
        this.objectName = objectName;
    }

    void addMap(MapSpec map) {
        if (maps.containsKey(map.name())) throw LoadPhase.error("map '%s' is defined twice", map.name());
        maps.put(map.name(), map);
    }

    private Map<Integer, List<ElfSymbol>> bySection;
    private Map<String, List<ElfSymbol>> byName;

    /** Symbols grouped once, so that lookups stay linear in the size of the file. */
    private void index() {
        if (bySection != null) return;
        bySection = new HashMap<>();
        byName = new HashMap<>();
        for (ElfSymbol s : elf.symbols()) {
            bySection.computeIfAbsent(s.sectionIndex(), k -> new ArrayList<>()).add(s);
            byName.computeIfAbsent(s.name(), k -> new ArrayList<>()).add(s);
        }
    }

    /** All symbols of section {@code index}, in symbol-table order. */
    List<ElfSymbol> allSymbolsIn(int index) {
        index();
        return bySection.getOrDefault(index, List.of());
    }

    /** The symbols of section {@code index} that a loader treats as named definitions (not the section symbol). */
    List<ElfSymbol> symbolsIn(int index) {
        List<ElfSymbol> out = new ArrayList<>();
        for (ElfSymbol s : allSymbolsIn(index)) {
            if (s.type() != ElfSymbol.STT_SECTION && !s.name().isEmpty()) out.add(s);
        }
        return out;
    }

    Optional<ElfSymbol> symbolIn(int index, String name) {
        index();
        for (ElfSymbol s : byName.getOrDefault(name, List.of())) if (s.sectionIndex() == index) return Optional.of(s);
        return Optional.empty();
    }

    List<ElfSymbol> symbolsNamed(String name) {
        index();
        return byName.getOrDefault(name, List.of());
    }

    boolean hasUndefinedSymbol(String name) {
        index();
        for (ElfSymbol s : byName.getOrDefault(name, List.of())) if (s.isUndefined()) return true;
        return false;
    }

    ElfSection section(int index) { return elf.section(index); }
}
