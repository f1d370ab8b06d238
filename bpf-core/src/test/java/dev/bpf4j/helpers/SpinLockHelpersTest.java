package dev.bpf4j.helpers;

import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.bpf4j.runtime.HelperIds.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SpinLockHelpersTest {
    @Test void lockAndUnlockExcludeEachOtherAcrossThreads() throws Exception {
        try (MapTable maps = MapTable.create(List.of(new MapDefinition("v", MapType.ARRAY, 4, 16, 1, 0).withSpinLock(0)))) {
            HelperRegistry reg = BpfHelpers.registry(maps);
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                ts.add(new Thread(() -> {
                    try (TestCall call = new TestCall().regions(maps.regions())) {
                        long key = call.buffer(4, true);
                        long v = call.call(reg, MAP_LOOKUP_ELEM, maps.handle(0), key);
                        for (int i = 0; i < 20_000; i++) {
                            call.call(reg, SPIN_LOCK, v);
                            NativeMemory.putLong(v + 8, NativeMemory.getLong(v + 8) + 1); // plain read-modify-write
                            call.call(reg, SPIN_UNLOCK, v);
                        }
                    }
                }));
            }
            ts.forEach(Thread::start);
            for (Thread t : ts) t.join();
            byte[] value = maps.map(0).lookup(new byte[4]).orElseThrow();
            assertThat(java.nio.ByteBuffer.wrap(value).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(8)).isEqualTo(80_000);
        }
    }

    @Test void badLocksEndTheRun() {
        try (MapTable maps = MapTable.create(List.of(new MapDefinition("v", MapType.ARRAY, 4, 16, 1, 0).withSpinLock(0)));
             TestCall call = new TestCall().regions(maps.regions())) {
            HelperRegistry reg = BpfHelpers.registry(maps);
            long key = call.buffer(4, true);
            long v = call.call(reg, MAP_LOOKUP_ELEM, maps.handle(0), key);
            assertThatThrownBy(() -> call.call(reg, SPIN_LOCK, v + 2)).hasMessageContaining("not 4-byte aligned");
            assertThatThrownBy(() -> call.call(reg, SPIN_LOCK, call.hidden(4))).hasMessageContaining("bpf_spin_lock lock (r1)");
            assertThat(call.call(reg, SPIN_LOCK, v)).isZero();
            assertThatThrownBy(() -> call.call(reg, SPIN_LOCK, v)) // never unlocked: a timeout, not a hang
                    .isInstanceOfSatisfying(BpfRuntimeException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.HELPER_FAILED))
                    .hasMessageContaining("held for more than");
            assertThatThrownBy(() -> call.call(reg, MAP_UPDATE_ELEM, maps.handle(0), key, v, 4)) // BPF_F_LOCK
                    .isInstanceOfSatisfying(BpfRuntimeException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.HELPER_FAILED));
            assertThat(call.call(reg, SPIN_UNLOCK, v)).isZero();
            assertThat(call.call(reg, MAP_UPDATE_ELEM, maps.handle(0), key, v, 4)).isZero();
        }
    }
}
