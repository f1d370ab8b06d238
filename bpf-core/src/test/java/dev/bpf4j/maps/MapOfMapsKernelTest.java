package dev.bpf4j.maps;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.bpf4j.maps.Bytes.u32;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * ARRAY_OF_MAPS and HASH_OF_MAPS against the kernel: creation checks, and the errno of every update
 * (inner maps matching the template or not, a dead id/fd, each flag, keys past the end), delete and
 * lookup. bpf4j's value is the inner map's id where the kernel's is its fd.
 */
class MapOfMapsKernelTest {
    static final MapDefinition ARRAY = new MapDefinition("a", MapType.ARRAY, 4, 8, 2, 0);
    static final MapDefinition HASH = new MapDefinition("h", MapType.HASH, 4, 8, 10, 0);
    static final List<MapDefinition> CANDIDATES = List.of(ARRAY, new MapDefinition("a3", MapType.ARRAY, 4, 8, 3, 0),
            new MapDefinition("a16", MapType.ARRAY, 4, 16, 2, 0), ARRAY.withFlags(MapFlags.BPF_F_INNER_MAP),
            new MapDefinition("a9", MapType.ARRAY, 4, 8, 9, MapFlags.BPF_F_INNER_MAP), HASH,
            new MapDefinition("h1", MapType.HASH, 4, 8, 1, 0), new MapDefinition("h8", MapType.HASH, 8, 8, 10, 0));

    static int bpf4j(Runnable r) {
        int e = Bytes.errno(r);
        return e == 0 ? 0 : -e;
    }

    @Test void creationAgrees() {
        Assumptions.assumeTrue(KernelMap.createResult(ARRAY) == 0, "bpf(BPF_MAP_CREATE) is not allowed here");
        List<MapDefinition> defs = List.of(
                new MapDefinition("o", MapType.ARRAY_OF_MAPS, 4, 4, 4, 0).withInnerMap(ARRAY),
                new MapDefinition("o", MapType.ARRAY_OF_MAPS, 4, 8, 4, 0).withInnerMap(ARRAY),
                new MapDefinition("o", MapType.ARRAY_OF_MAPS, 8, 4, 4, 0).withInnerMap(ARRAY),
                new MapDefinition("o", MapType.ARRAY_OF_MAPS, 4, 4, 4, MapFlags.BPF_F_RDONLY_PROG).withInnerMap(ARRAY),
                new MapDefinition("o", MapType.HASH_OF_MAPS, 8, 4, 4, 0).withInnerMap(HASH),
                new MapDefinition("o", MapType.HASH_OF_MAPS, 4, 4, 0, 0).withInnerMap(HASH),
                new MapDefinition("o", MapType.HASH_OF_MAPS, 4, 4, 4, 0).withInnerMap(
                        new MapDefinition("n", MapType.ARRAY_OF_MAPS, 4, 4, 1, 0).withInnerMap(ARRAY)),
                new MapDefinition("o", MapType.ARRAY_OF_MAPS, 4, 4, 4, 0).withInnerMap(new MapDefinition("p", MapType.PROG_ARRAY, 4, 4, 1, 0)));
        for (MapDefinition d : defs) {
            int ours = bpf4j(() -> Maps.create(d).close());
            assertThat(ours).as("create %s", d).isEqualTo(KernelMap.createResult(d));
        }
    }

    @Test void updatesDeletesAndLookupsAgree() {
        Assumptions.assumeTrue(KernelMap.createResult(ARRAY) == 0, "bpf(BPF_MAP_CREATE) is not allowed here");
        for (MapDefinition outerDef : List.of(new MapDefinition("oa", MapType.ARRAY_OF_MAPS, 4, 4, 3, 0).withInnerMap(ARRAY),
                new MapDefinition("oi", MapType.ARRAY_OF_MAPS, 4, 4, 3, 0).withInnerMap(ARRAY.withFlags(MapFlags.BPF_F_INNER_MAP)),
                new MapDefinition("oh", MapType.HASH_OF_MAPS, 4, 4, 2, 0).withInnerMap(HASH))) {
            List<BpfMap> ours = new ArrayList<>();
            List<KernelMap> theirs = new ArrayList<>();
            try (MapOfMaps outer = (MapOfMaps) Maps.create(outerDef); KernelMap kOuter = KernelMap.create(outerDef).orElseThrow()) {
                for (MapDefinition c : CANDIDATES) {
                    ours.add(Maps.create(c));
                    theirs.add(KernelMap.create(c).orElseThrow());
                }
                int step = 0;
                for (int key = 0; key <= 3; key++) {
                    for (long flags : new long[] {MapFlags.BPF_ANY, MapFlags.BPF_NOEXIST, MapFlags.BPF_EXIST, 8}) {
                        for (int c = 0; c <= CANDIDATES.size(); c++) {
                            byte[] k = u32(key);
                            boolean dead = c == CANDIDATES.size();
                            byte[] ourValue = u32(dead ? 0x7ff00000 : ours.get(c).id());
                            byte[] theirValue = u32(dead ? 0x7ff0 : theirs.get(c).fd());
                            String what = outerDef.name() + " step " + step++ + ": update key " + key + " flags " + flags + " with "
                                    + (dead ? "a dead map" : CANDIDATES.get(c));
                            assertThat(bpf4j(() -> outer.update(k, ourValue, flags))).as(what).isEqualTo(kOuter.update(k, theirValue, flags));
                        }
                    }
                    byte[] k = u32(key);
                    int[] err = new int[1];
                    boolean present = kOuter.lookup(k, err) != null;
                    assertThat(outer.lookup(k).isPresent()).as("%s lookup %d", outerDef.name(), key).isEqualTo(present);
                    if (key % 2 == 0) {
                        assertThat(bpf4j(() -> outer.delete(k))).as("%s delete %d", outerDef.name(), key).isEqualTo(kOuter.delete(k));
                        assertThat(bpf4j(() -> outer.delete(k))).as("%s delete again %d", outerDef.name(), key).isEqualTo(kOuter.delete(k));
                    }
                }
            } finally {
                ours.forEach(BpfMap::close);
                theirs.forEach(KernelMap::close);
            }
        }
    }

}
