package dev.bpf4j.maps;

import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.Test;

import static dev.bpf4j.maps.Bytes.errno;
import static dev.bpf4j.maps.Bytes.u32;
import static dev.bpf4j.maps.Bytes.u64;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ArrayMapTest {
    private static ArrayMap array(int max, int valueSize, int flags) {
        return (ArrayMap) Maps.create(new MapDefinition("arr", MapType.ARRAY, 4, valueSize, max, flags));
    }

    @Test void elementsExistZeroedAndUpdateInPlace() {
        try (ArrayMap m = array(4, 8, 0)) {
            assertThat(m.lookup(u32(3))).hasValueSatisfying(v -> assertThat(v).containsOnly(0));
            m.update(u32(2), u64(42), MapFlags.BPF_ANY);
            m.update(u32(2), u64(43), MapFlags.BPF_EXIST);
            assertThat(u64(m.lookup(u32(2)).orElseThrow(), 0)).isEqualTo(43);
            assertThat(m.lookup(u32(4))).isEmpty();
        }
    }

    @Test void kernelErrors() {
        try (ArrayMap m = array(4, 8, 0)) {
            assertThat(errno(() -> m.update(u32(4), u64(1), MapFlags.BPF_ANY))).isEqualTo(Errno.E2BIG);
            assertThat(errno(() -> m.update(u32(0), u64(1), MapFlags.BPF_NOEXIST))).isEqualTo(Errno.EEXIST);
            assertThat(errno(() -> m.update(u32(0), u64(1), 3))).isEqualTo(Errno.EINVAL);
            assertThat(errno(() -> m.update(u32(0), u64(1), MapFlags.BPF_F_LOCK))).isEqualTo(Errno.EINVAL);
            assertThat(errno(() -> m.delete(u32(0)))).isEqualTo(Errno.EINVAL);
            assertThat(errno(() -> m.update(new byte[3], u64(1), 0))).isEqualTo(Errno.EINVAL);
            assertThat(errno(() -> m.update(u32(0), new byte[7], 0))).isEqualTo(Errno.EINVAL);
        }
    }

    @Test void createChecks() {
        assertThat(errno(() -> Maps.create(new MapDefinition("a", MapType.ARRAY, 8, 8, 1, 0)))).isEqualTo(Errno.EINVAL);
        assertThat(errno(() -> Maps.create(new MapDefinition("a", MapType.ARRAY, 4, 0, 1, 0)))).isEqualTo(Errno.EINVAL);
        assertThat(errno(() -> Maps.create(new MapDefinition("a", MapType.ARRAY, 4, 8, 0, 0)))).isEqualTo(Errno.EINVAL);
        assertThat(errno(() -> Maps.create(new MapDefinition("a", MapType.ARRAY, 4, 8, 1, 1 << 20)))).isEqualTo(Errno.EINVAL);
        assertThat(errno(() -> Maps.create(new MapDefinition("a", MapType.ARRAY, 4, 8, 1,
                MapFlags.BPF_F_RDONLY_PROG | MapFlags.BPF_F_WRONLY_PROG)))).isEqualTo(Errno.EINVAL);
    }

    @Test void hugeMapsAreEnomemBeforeAnyAllocation() {
        assertThat(errno(() -> Maps.create(new MapDefinition("big", MapType.ARRAY, 4, 8, 1 << 30, 0)))).isEqualTo(Errno.ENOMEM);
        assertThat(errno(() -> Maps.create(new MapDefinition("big", MapType.HASH, 4, 4096, 1 << 21, 0)))).isEqualTo(Errno.ENOMEM);
    }

    @Test void nextKeyWalksIndexes() {
        try (ArrayMap m = array(3, 4, 0)) {
            assertThat(m.nextKey(null).map(Bytes::u32)).contains(0);
            assertThat(m.nextKey(u32(1)).map(Bytes::u32)).contains(2);
            assertThat(m.nextKey(u32(2))).isEmpty();
            assertThat(m.nextKey(u32(77)).map(Bytes::u32)).contains(0);
            assertThat(m.keyList()).hasSize(3);
        }
    }

    @Test void programLookupPointsIntoTheArenaAndIsStable() {
        try (ArrayMap m = array(10, 12, 0)) {
            long key = NativeMemory.allocate(4);
            try {
                NativeMemory.putInt(key, 5);
                long p = m.programLookup(key);
                assertThat(m.stride()).isEqualTo(16);
                assertThat(p).isEqualTo(m.valuesBase() + 5 * 16);
                NativeMemory.putLong(p, 99);
                assertThat(u64(m.lookup(u32(5)).orElseThrow(), 0)).isEqualTo(99);
                m.update(u32(5), new byte[12], 0);
                assertThat(m.programLookup(key)).isEqualTo(p);
                NativeMemory.putInt(key, 10);
                assertThat(m.programLookup(key)).isZero();
                MemoryRegion r = m.regions().get(0);
                assertThat(r.allows(p, 12, true)).isTrue();
                assertThat(r.length()).isEqualTo(160);
            } finally {
                NativeMemory.free(key);
            }
        }
    }

    @Test void readOnlyForProgramsGivesReadOnlyRegion() {
        try (ArrayMap m = array(2, 8, MapFlags.BPF_F_RDONLY_PROG)) {
            assertThat(m.regions()).singleElement().satisfies(r -> assertThat(r.writable()).isFalse());
        }
    }

    @Test void freezeAndAccessFlagsGuardTheJavaSideOnly() throws Exception {
        try (ArrayMap m = array(2, 8, MapFlags.BPF_F_MMAPABLE)) {
            m.update(u32(0), u64(1), 0);
            m.freeze();
            assertThat(errno(() -> m.update(u32(0), u64(2), 0))).isEqualTo(Errno.EPERM);
            assertThat(errno(m::freeze)).isEqualTo(Errno.EPERM);
            assertThat(m.lookup(u32(0))).isPresent();
            long key = NativeMemory.allocate(4), val = NativeMemory.allocate(8);
            try {
                assertThat(m.programUpdate(key, val, 0)).isZero(); // programs may still write a frozen map
            } finally {
                NativeMemory.free(key);
                NativeMemory.free(val);
            }
        }
        try (ArrayMap m = array(2, 8, MapFlags.BPF_F_WRONLY)) {
            assertThat(errno(() -> m.lookup(u32(0)))).isEqualTo(Errno.EPERM);
            m.update(u32(0), u64(2), 0);
        }
        try (ArrayMap m = array(2, 8, MapFlags.BPF_F_RDONLY)) {
            assertThat(errno(() -> m.update(u32(0), u64(2), 0))).isEqualTo(Errno.EPERM);
            assertThat(m.lookup(u32(0))).isPresent();
        }
    }

    @Test void useAfterCloseIsAClearError() {
        ArrayMap m = array(2, 8, 0);
        m.close();
        m.close();
        assertThatThrownBy(() -> m.lookup(u32(0))).isInstanceOf(IllegalStateException.class).hasMessageContaining("'arr'").hasMessageContaining("closed");
    }

    @Test void percpuArrayHasOneSlotPerPossibleCpu() {
        int cpus = Cpus.possible();
        try (ArrayMap m = (ArrayMap) Maps.create(new MapDefinition("pc", MapType.PERCPU_ARRAY, 4, 4, 3, 0))) {
            assertThat(m.javaValueSize()).isEqualTo(8 * cpus);
            byte[] all = new byte[8 * cpus];
            for (int c = 0; c < cpus; c++) all[c * 8] = (byte) (c + 1);
            m.update(u32(1), all, 0);
            assertThat(m.lookup(u32(1)).orElseThrow()).isEqualTo(all);
            long key = NativeMemory.allocate(4);
            try {
                NativeMemory.putInt(key, 1);
                long p = m.programLookup(key);
                long first = m.elementAddress(1, 0);
                assertThat((p - first) % 8).isZero();
                assertThat((p - first) / 8).isBetween(0L, (long) cpus - 1);
                assertThat(NativeMemory.getByte(p)).isEqualTo((byte) ((p - first) / 8 + 1));
                // a program update writes one CPU's slot only
                long val = NativeMemory.allocate(4);
                NativeMemory.putInt(val, 0x77);
                assertThat(m.programUpdate(key, val, 0)).isZero();
                NativeMemory.free(val);
                byte[] after = m.lookup(u32(1)).orElseThrow();
                int changed = 0;
                for (int c = 0; c < cpus; c++) if (after[c * 8] == 0x77) changed++;
                assertThat(changed).isEqualTo(1);
            } finally {
                NativeMemory.free(key);
            }
            assertThat(errno(() -> m.update(u32(0), all, MapFlags.BPF_F_LOCK))).isEqualTo(Errno.EINVAL);
        }
    }
}
