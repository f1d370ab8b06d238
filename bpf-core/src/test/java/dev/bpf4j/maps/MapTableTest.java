package dev.bpf4j.maps;

import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MapTableTest {
    private static final HelperCall CALL = new HelperCall() {
        @Override public String programName() { return "p"; }
        @Override public int pc() { return 3; }
        @Override public boolean accessible(long address, long size, boolean write) { return false; }
        @Override public void exit(long r0) { }
    };

    private static MapTable table() {
        return MapTable.create(List.of(
                new MapDefinition("counts", MapType.ARRAY, 4, 8, 16, 0),
                new MapDefinition("flows", MapType.HASH, 8, 16, 32, 0),
                new MapDefinition("events", MapType.RINGBUF, 0, 0, 4096, 0),
                new MapDefinition("q", MapType.QUEUE, 0, 4, 4, 0)));
    }

    @Test void handlesAreStableDescriptorsThatResolveBack() {
        try (MapTable t = table()) {
            long h0 = t.handle(0), h1 = t.handle("flows");
            assertThat(h1 - h0).isEqualTo(MapTable.HANDLE_SIZE);
            assertThat(t.handle(0)).isEqualTo(h0);
            assertThat(t.find(h1)).containsSame(t.map(1));
            assertThat(t.find(h1 + 8)).isEmpty();
            assertThat(t.find(0)).isEmpty();
            assertThat(NativeMemory.getInt(h0 + MapTable.OFF_TYPE)).isEqualTo(2);
            assertThat(NativeMemory.getInt(h0 + MapTable.OFF_MAX_ENTRIES)).isEqualTo(16);
            assertThat(NativeMemory.getInt(h0 + MapTable.OFF_VALUE_STRIDE)).isEqualTo(8);
            assertThat(NativeMemory.getLong(h0 + MapTable.OFF_VALUES_BASE)).isEqualTo(((ArrayMap) t.map(0)).valuesBase());
            assertThat(NativeMemory.getInt(h1 + MapTable.OFF_KEY_SIZE)).isEqualTo(8);
            assertThat(NativeMemory.getLong(h1 + MapTable.OFF_VALUES_BASE)).isZero();
            assertThat(NativeMemory.getInt(h1 + MapTable.OFF_INDEX)).isEqualTo(1);
        }
    }

    @Test void unknownHandleIsABadHelperArgument() {
        try (MapTable t = table()) {
            assertThatThrownBy(() -> t.resolve(CALL, "bpf_map_lookup_elem", 0x1234))
                    .isInstanceOfSatisfying(BpfRuntimeException.class, e -> {
                        assertThat(e.kind()).isEqualTo(ErrorKind.BAD_HELPER_ARGUMENT);
                        assertThat(e.pc()).isEqualTo(3);
                    })
                    .hasMessageContaining("bpf_map_lookup_elem").hasMessageContaining("0x1234");
            assertThatThrownBy(() -> t.resolve(CALL, "bpf_ringbuf_output", t.handle("q"), RingBufMap.class, "RINGBUF"))
                    .hasMessageContaining("needs a RINGBUF map");
        }
    }

    @Test void regionsCoverEveryValueArena() {
        try (MapTable t = table()) {
            assertThat(t.regions()).hasSize(3); // array, hash, ringbuf; the queue has none
        }
    }

    @Test void closeClosesEveryMap() {
        MapTable t = table();
        BpfMap m = t.map(1);
        t.close();
        assertThat(m.isOpen()).isFalse();
        assertThat(t.find(0)).isEmpty();
        assertThatThrownBy(() -> t.handle(0)).isInstanceOf(IllegalStateException.class);
    }

    @Test void failedCreationClosesWhatWasMade() {
        assertThatThrownBy(() -> MapTable.create(List.of(new MapDefinition("ok", MapType.ARRAY, 4, 8, 1, 0),
                new MapDefinition("bad", MapType.HASH, 0, 8, 1, 0))))
                .isInstanceOf(BpfMapException.class).hasMessageContaining("'bad'");
        assertThatThrownBy(() -> MapDefinition.of("x", 11, 4, 4, 4, 0)).isInstanceOf(BpfMapException.class)
                .hasMessageContaining("map type 11");
    }
}
