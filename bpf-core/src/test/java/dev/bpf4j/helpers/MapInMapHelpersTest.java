package dev.bpf4j.helpers;

import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapOfMaps;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.maps.Maps;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.bpf4j.runtime.HelperIds.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MapInMapHelpersTest {
    static final MapDefinition INNER = new MapDefinition("inner_a", MapType.ARRAY, 4, 8, 2, 0);

    @Test void lookupInTheOuterMapGivesAHandleTheMapHelpersTake() {
        MapDefinition outer = new MapDefinition("outer", MapType.ARRAY_OF_MAPS, 4, 4, 3, 0).withInnerMap(INNER);
        try (MapTable maps = MapTable.create(List.of(INNER, outer));
             BpfMap foreign = Maps.create(INNER.withFlags(0));
             TestCall call = new TestCall().regions(maps.regions())) {
            MapOfMaps o = (MapOfMaps) maps.map("outer").orElseThrow();
            o.setInner(0, maps.map("inner_a").orElseThrow());
            o.setInner(1, foreign);
            HelperRegistry reg = BpfHelpers.registry(maps);
            long key = call.buffer(4, true), value = call.buffer(8, true);
            assertThat(call.call(reg, MAP_LOOKUP_ELEM, maps.handle("outer"), key)).isEqualTo(maps.handle("inner_a"));
            NativeMemory.putInt(key, 2);
            assertThat(call.call(reg, MAP_LOOKUP_ELEM, maps.handle("outer"), key)).isZero(); // empty slot: NULL
            NativeMemory.putInt(key, 1);
            long h = call.call(reg, MAP_LOOKUP_ELEM, maps.handle("outer"), key);
            assertThat(h).isNotZero().isEqualTo(maps.handleFor(foreign));
            NativeMemory.putLong(value, 42);
            assertThat(call.call(reg, MAP_UPDATE_ELEM, h, key, value, 0)).isZero(); // foreign[1] = 42 through the inner handle
            assertThat(foreign.lookup(new byte[] {1, 0, 0, 0}).orElseThrow()[0]).isEqualTo((byte) 42);
            assertThatThrownBy(() -> call.call(reg, MAP_UPDATE_ELEM, maps.handle("outer"), key, value, 0))
                    .isInstanceOfSatisfying(BpfRuntimeException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.BAD_HELPER_ARGUMENT));
            foreign.close();
            assertThatThrownBy(() -> call.call(reg, MAP_LOOKUP_ELEM, maps.handle("outer"), key))
                    .isInstanceOfSatisfying(BpfRuntimeException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.HELPER_FAILED))
                    .hasMessageContaining("has been closed");
        }
    }

    @Test void spinLockHelpersWantTheLockWordOfALockedValue() {
        try (MapTable maps = MapTable.create(List.of(new MapDefinition("v", MapType.ARRAY, 4, 16, 1, 0).withSpinLock(8),
                new MapDefinition("plain", MapType.ARRAY, 4, 16, 1, 0)));
             TestCall call = new TestCall().regions(maps.regions())) {
            HelperRegistry reg = BpfHelpers.registry(maps);
            long key = call.buffer(4, true);
            long v = call.call(reg, MAP_LOOKUP_ELEM, maps.handle("v"), key);
            long p = call.call(reg, MAP_LOOKUP_ELEM, maps.handle("plain"), key);
            assertThatThrownBy(() -> call.call(reg, SPIN_LOCK, v)).hasMessageContaining("is not the bpf_spin_lock of a map value");
            assertThatThrownBy(() -> call.call(reg, SPIN_LOCK, p + 8)).hasMessageContaining("is not the bpf_spin_lock of a map value");
            assertThat(call.call(reg, SPIN_LOCK, v + 8)).isZero();
            assertThat(call.call(reg, SPIN_UNLOCK, v + 8)).isZero();
        }
    }
}
