package dev.bpf4j.it.corpus;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.ObjectLoadOptions;
import dev.bpf4j.api.RunOptions;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.maps.BpfMapException;
import dev.bpf4j.maps.Errno;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapOfMaps;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.maps.Maps;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static dev.bpf4j.it.corpus.Packets.le;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Map-in-map through the object API: inner maps set and read by slot from Java, used by programs on each engine. */
class MapInMapObjectTest {
    static long u64(byte[] v) { return ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN).getLong(); }

    @ParameterizedTest
    @ValueSource(strings = {"interp", "jit", "jvm"})
    void innerMapsSetFromJavaAreUsedByPrograms(String engine) {
        try (BpfObject obj = BpfObject.open(CorpusCase.DIR.resolve("map_in_map.o")).load(ObjectLoadOptions.engine(engine));
             BpfMap mine = Maps.create(new MapDefinition("mine", MapType.ARRAY, 4, 8, 4, 0));
             BpfMap tooBig = Maps.create(new MapDefinition("big", MapType.ARRAY, 4, 8, 5, 0))) {
            MapOfMaps outer = obj.mapOfMaps("outer_arr");
            assertThat(outer.inner(0)).containsSame(obj.map("inner_a"));
            assertThat(outer.inner(1)).isEmpty();
            assertThat(dev.bpf4j.api.MapDump.json(outer)).isEqualTo("{\"name\": \"outer_arr\", \"entries\": ["
                    + "{\"key\": [\"0x00\", \"0x00\", \"0x00\", \"0x00\"], \"inner_map\": \"inner_a\"}, "
                    + "{\"key\": [\"0x02\", \"0x00\", \"0x00\", \"0x00\"], \"inner_map\": \"inner_b\"}]}");
            assertThat(outer.innerTemplate().maxEntries()).isEqualTo(4);
            var run = obj.program("mim_update");
            assertThat(run.run(RunOptions.defaults().withCtxIn(Corpus.mim(1, 0, 1, false))).retval()).isEqualTo(1); // empty slot

            outer.setInner(1, mine);
            assertThat(run.run(RunOptions.defaults().withCtxIn(Corpus.mim(1, 2, 9, false))).retval()).isZero();
            assertThat(u64(mine.lookup(new byte[] {2, 0, 0, 0}).orElseThrow())).isEqualTo(9);
            assertThat(u64(mine.lookup(new byte[] {3, 0, 0, 0}).orElseThrow())).isEqualTo(18); // the update through the inner map
            assertThat(obj.map("outer_arr").lookup(new byte[] {1, 0, 0, 0})).hasValueSatisfying(
                    v -> assertThat(ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN).getInt()).isEqualTo(mine.id()));

            assertThatThrownBy(() -> outer.setInner(2, tooBig)).isInstanceOfSatisfying(BpfMapException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
            MapOfMaps byHash = obj.mapOfMaps("outer_hash");
            assertThatThrownBy(() -> obj.mapOfMaps("inner_a")).hasMessageContaining("is not a map-in-map");
            byHash.setInner(new byte[] {9, 0, 0, 0}, mine, 0);
            assertThat(run.run(RunOptions.defaults().withCtxIn(Corpus.mim(9, 2, 1, true))).retval()).isZero();
            assertThat(mine.lookup(new byte[] {2, 0, 0, 0})).contains(le(10));
            outer.clear(1);
            assertThat(run.run(RunOptions.defaults().withCtxIn(Corpus.mim(1, 0, 1, false))).retval()).isEqualTo(1);
        }
    }
}
