package dev.bpf4j.maps;

import org.junit.jupiter.api.Test;

import static dev.bpf4j.maps.Bytes.errno;
import static dev.bpf4j.maps.Bytes.u32;
import static org.assertj.core.api.Assertions.assertThat;

class MapOfMapsTest {
    static final MapDefinition INNER = new MapDefinition("inner", MapType.ARRAY, 4, 8, 2, 0);

    static MapOfMaps outer(MapType t, MapDefinition template) {
        return (MapOfMaps) Maps.create(new MapDefinition("outer", t, 4, 4, 4, 0).withInnerMap(template));
    }

    @Test void arrayOfMapsHoldsIdsAndChecksTheTemplate() {
        try (MapOfMaps o = outer(MapType.ARRAY_OF_MAPS, INNER);
             BpfMap a = Maps.create(INNER);
             BpfMap bigger = Maps.create(new MapDefinition("big", MapType.ARRAY, 4, 8, 3, 0));
             BpfMap wrongValue = Maps.create(new MapDefinition("w", MapType.ARRAY, 4, 16, 2, 0));
             BpfMap hash = Maps.create(new MapDefinition("h", MapType.HASH, 4, 8, 2, 0))) {
            assertThat(o.lookup(u32(1))).isEmpty();
            o.setInner(1, a);
            assertThat(o.lookup(u32(1))).hasValueSatisfying(v -> assertThat(u32(v)).isEqualTo(a.id()));
            assertThat(o.inner(1)).containsSame(a);
            o.update(u32(2), u32(a.id()), MapFlags.BPF_ANY); // the same map twice is fine
            assertThat(errno(() -> o.setInner(0, bigger))).isEqualTo(Errno.EINVAL); // max_entries differs
            assertThat(errno(() -> o.setInner(0, wrongValue))).isEqualTo(Errno.EINVAL);
            assertThat(errno(() -> o.setInner(0, hash))).isEqualTo(Errno.EINVAL);
            assertThat(errno(() -> o.update(u32(0), u32(0x7fff0000), MapFlags.BPF_ANY))).isEqualTo(Errno.EBADF);
            assertThat(errno(() -> o.update(u32(0), u32(a.id()), MapFlags.BPF_NOEXIST))).isEqualTo(Errno.EINVAL);
            assertThat(errno(() -> o.update(u32(4), u32(a.id()), MapFlags.BPF_ANY))).isEqualTo(Errno.E2BIG);
            assertThat(o.keyList()).hasSize(4);
            o.clear(2);
            assertThat(errno(() -> o.clear(2))).isEqualTo(Errno.ENOENT);
            assertThat(errno(() -> o.clear(9))).isEqualTo(Errno.E2BIG);
            assertThat(o.inner(2)).isEmpty();
        }
    }

    @Test void innerMapFlagLetsArraySizesDiffer() {
        MapDefinition template = INNER.withFlags(MapFlags.BPF_F_INNER_MAP);
        try (MapOfMaps o = outer(MapType.ARRAY_OF_MAPS, template);
             BpfMap big = Maps.create(new MapDefinition("big", MapType.ARRAY, 4, 8, 100, MapFlags.BPF_F_INNER_MAP));
             BpfMap plain = Maps.create(INNER)) {
            o.setInner(0, big);
            assertThat(errno(() -> o.setInner(1, plain))).isEqualTo(Errno.EINVAL); // map_flags differ
        }
    }

    @Test void hashOfMapsUsesHashFlagsAndIgnoresMaxEntries() {
        MapDefinition t = new MapDefinition("t", MapType.HASH, 4, 8, 10, 0);
        try (MapOfMaps o = outer(MapType.HASH_OF_MAPS, t);
             BpfMap small = Maps.create(new MapDefinition("s", MapType.HASH, 4, 8, 1, 0));
             BpfMap spin = Maps.create(new MapDefinition("l", MapType.HASH, 4, 8, 1, 0).withSpinLock(0))) {
            byte[] key = u32(77);
            o.setInner(key, small, MapFlags.BPF_NOEXIST);
            assertThat(errno(() -> o.setInner(key, small, MapFlags.BPF_NOEXIST))).isEqualTo(Errno.EEXIST);
            assertThat(errno(() -> o.setInner(u32(5), small, MapFlags.BPF_EXIST))).isEqualTo(Errno.ENOENT);
            assertThat(errno(() -> o.setInner(u32(5), spin, MapFlags.BPF_ANY))).isEqualTo(Errno.EINVAL); // the spin lock differs
            assertThat(o.inner(key)).containsSame(small);
            assertThat(o.nextKey(null)).hasValueSatisfying(k -> assertThat(k).isEqualTo(key));
            o.delete(key);
            assertThat(o.inner(key)).isEmpty();
        }
    }

    @Test void creationFollowsTheKernel() {
        assertThat(errno(() -> Maps.create(new MapDefinition("o", MapType.ARRAY_OF_MAPS, 4, 4, 1, 0)))).isEqualTo(Errno.EINVAL);
        assertThat(errno(() -> Maps.create(new MapDefinition("o", MapType.ARRAY_OF_MAPS, 4, 8, 1, 0).withInnerMap(INNER)))).isEqualTo(Errno.EINVAL);
        assertThat(errno(() -> Maps.create(new MapDefinition("o", MapType.ARRAY_OF_MAPS, 4, 4, 1, MapFlags.BPF_F_RDONLY_PROG).withInnerMap(INNER))))
                .isEqualTo(Errno.EINVAL);
        MapDefinition nested = new MapDefinition("n", MapType.ARRAY_OF_MAPS, 4, 4, 1, 0).withInnerMap(INNER);
        assertThat(errno(() -> Maps.create(new MapDefinition("o", MapType.HASH_OF_MAPS, 4, 4, 1, 0).withInnerMap(nested)))).isEqualTo(Errno.EINVAL);
        assertThat(errno(() -> Maps.create(new MapDefinition("o", MapType.HASH_OF_MAPS, 4, 4, 1, 0)
                .withInnerMap(new MapDefinition("p", MapType.PROG_ARRAY, 4, 4, 1, 0))))).isEqualTo(Errno.ENOTSUPP);
        assertThat(errno(() -> Maps.create(new MapDefinition("o", MapType.ARRAY_OF_MAPS, 4, 4, 1, 0)
                .withInnerMap(new MapDefinition("bad", MapType.ARRAY, 4, 0, 1, 0))))).isEqualTo(Errno.EINVAL);
    }

    @Test void closedMapsHaveNoId() {
        BpfMap a = Maps.create(INNER);
        int id = a.id();
        assertThat(Maps.byId(id)).containsSame(a);
        a.close();
        assertThat(Maps.byId(id)).isEmpty();
    }
}
