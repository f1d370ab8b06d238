package dev.bpf4j.helpers;

import dev.bpf4j.maps.Errno;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapFlags;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.bpf4j.runtime.HelperIds.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MapHelpersTest {
    private MapTable maps;
    private HelperRegistry reg;
    private TestCall call;

    @BeforeEach void setUp() {
        maps = MapTable.create(List.of(
                new MapDefinition("h", MapType.HASH, 4, 8, 2, 0),
                new MapDefinition("q", MapType.QUEUE, 0, 8, 2, 0),
                new MapDefinition("rb", MapType.RINGBUF, 0, 0, 4096, 0),
                new MapDefinition("ro", MapType.ARRAY, 4, 8, 2, MapFlags.BPF_F_RDONLY_PROG)));
        reg = BpfHelpers.registry(maps);
        call = new TestCall().regions(maps.regions());
    }

    @AfterEach void tearDown() {
        call.close();
        maps.close();
    }

    @Test void lookupUpdateDeleteReturnKernelResults() {
        long h = maps.handle("h");
        long key = call.buffer(4, true), val = call.buffer(8, true);
        NativeMemory.putInt(key, 5);
        NativeMemory.putLong(val, 500);
        assertThat(call.call(reg, MAP_LOOKUP_ELEM, h, key)).isZero();
        assertThat(call.call(reg, MAP_UPDATE_ELEM, h, key, val, MapFlags.BPF_NOEXIST)).isZero();
        assertThat(call.call(reg, MAP_UPDATE_ELEM, h, key, val, MapFlags.BPF_NOEXIST)).isEqualTo(-Errno.EEXIST);
        long p = call.call(reg, MAP_LOOKUP_ELEM, h, key);
        assertThat(NativeMemory.getLong(p)).isEqualTo(500);
        assertThat(call.accessible(p, 8, true)).isTrue();
        NativeMemory.putInt(key, 6);
        assertThat(call.call(reg, MAP_UPDATE_ELEM, h, key, val, MapFlags.BPF_EXIST)).isEqualTo(-Errno.ENOENT);
        assertThat(call.call(reg, MAP_UPDATE_ELEM, h, key, val, 0)).isZero();
        NativeMemory.putInt(key, 7);
        assertThat(call.call(reg, MAP_UPDATE_ELEM, h, key, val, 0)).isEqualTo(-Errno.E2BIG);
        assertThat(call.call(reg, MAP_DELETE_ELEM, h, key)).isEqualTo(-Errno.ENOENT);
        NativeMemory.putInt(key, 5);
        assertThat(call.call(reg, MAP_DELETE_ELEM, h, key)).isZero();
    }

    @Test void badPointersAndHandlesEndTheRunNamingTheHelper() {
        long h = maps.handle("h");
        long key = call.buffer(4, true);
        assertThatThrownBy(() -> call.call(reg, MAP_LOOKUP_ELEM, 0xdead0, key))
                .isInstanceOfSatisfying(BpfRuntimeException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.BAD_HELPER_ARGUMENT))
                .hasMessageContaining("bpf_map_lookup_elem").hasMessageContaining("test_prog");
        long hidden = call.hidden(8);
        assertThatThrownBy(() -> call.call(reg, MAP_LOOKUP_ELEM, h, hidden))
                .hasMessageContaining("key (r2)").hasMessageContaining("not readable");
        assertThatThrownBy(() -> call.call(reg, MAP_UPDATE_ELEM, h, key, hidden, 0))
                .hasMessageContaining("value (r3)");
        assertThatThrownBy(() -> call.call(reg, MAP_LOOKUP_ELEM, h, key + 2)) // 4-byte key runs past the buffer
                .isInstanceOf(BpfRuntimeException.class);
        assertThatThrownBy(() -> call.call(reg, MAP_LOOKUP_ELEM, maps.handle("rb"), key))
                .hasMessageContaining("cannot be used with map 'rb'");
        assertThatThrownBy(() -> call.call(reg, MAP_UPDATE_ELEM, maps.handle("ro"), key, key, 0))
                .hasMessageContaining("read-only for programs");
        assertThatThrownBy(() -> call.call(reg, MAP_PUSH_ELEM, h, key, 0)).hasMessageContaining("QUEUE or STACK");
    }

    @Test void readOnlyMapsCanStillBeLookedUp() {
        long key = call.buffer(4, true);
        long p = call.call(reg, MAP_LOOKUP_ELEM, maps.handle("ro"), key);
        assertThat(p).isNotZero();
        assertThat(call.accessible(p, 8, false)).isTrue();
        assertThat(call.accessible(p, 8, true)).isFalse();
    }

    @Test void queueHelpers() {
        long q = maps.handle("q");
        long v = call.buffer(8, true);
        NativeMemory.putLong(v, 11);
        assertThat(call.call(reg, MAP_PUSH_ELEM, q, v, 0)).isZero();
        NativeMemory.putLong(v, 22);
        assertThat(call.call(reg, MAP_PUSH_ELEM, q, v, 0)).isZero();
        assertThat(call.call(reg, MAP_PUSH_ELEM, q, v, 0)).isEqualTo(-Errno.E2BIG);
        assertThat(call.call(reg, MAP_PUSH_ELEM, q, v, MapFlags.BPF_NOEXIST)).isEqualTo(-Errno.EINVAL);
        assertThat(call.call(reg, MAP_PEEK_ELEM, q, v)).isZero();
        assertThat(NativeMemory.getLong(v)).isEqualTo(11);
        assertThat(call.call(reg, MAP_POP_ELEM, q, v)).isZero();
        assertThat(call.call(reg, MAP_POP_ELEM, q, v)).isZero();
        assertThat(NativeMemory.getLong(v)).isEqualTo(22);
        NativeMemory.putLong(v, -1);
        assertThat(call.call(reg, MAP_POP_ELEM, q, v)).isEqualTo(-Errno.ENOENT);
        assertThat(NativeMemory.getLong(v)).isZero();
        long ro = call.buffer(8, false);
        assertThatThrownBy(() -> call.call(reg, MAP_POP_ELEM, q, ro)).hasMessageContaining("not writable");
    }

    @Test void helperIdsAndNamesMatchTheKernel() {
        assertThat(reg.lookup(1).orElseThrow().name()).isEqualTo("bpf_map_lookup_elem");
        assertThat(reg.lookup(87).orElseThrow().name()).isEqualTo("bpf_map_push_elem");
        assertThat(reg.lookup(130).orElseThrow().name()).isEqualTo("bpf_ringbuf_output");
        assertThat(reg.lookup(165).orElseThrow().name()).isEqualTo("bpf_snprintf");
        assertThat(reg.lookup(125).orElseThrow().name()).isEqualTo("bpf_ktime_get_boot_ns");
        assertThat(reg.lookup(TAIL_CALL).orElseThrow().name()).isEqualTo("bpf_tail_call");
        assertThat(reg.lookup(164).orElseThrow().name()).isEqualTo("bpf_for_each_map_elem");
        assertThat(reg.lookup(181).orElseThrow().name()).isEqualTo("bpf_loop");
        assertThat(reg.lookup(27).orElseThrow().name()).isEqualTo("bpf_get_stackid");
        assertThat(reg.lookup(67).orElseThrow().name()).isEqualTo("bpf_get_stack");
        assertThat(reg.lookup(182).orElseThrow().name()).isEqualTo("bpf_strncmp");
        assertThat(reg.lookup(51).orElseThrow().name()).isEqualTo("bpf_redirect_map");
        assertThat(reg.all()).hasSize(79); // every one under its kernel name: HelperTableTest
    }
}
