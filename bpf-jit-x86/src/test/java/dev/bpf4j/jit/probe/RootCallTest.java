package dev.bpf4j.jit.probe;

import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.maps.StackTraceMap;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.stack.StackHelpers;
import dev.bpf4j.stack.StackTraceView;
import dev.bpf4j.unwind.Frame;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A call through {@link RootCall} ends every stack walk at the thunk: bpf_get_stackid on leaf gives
 * exactly leaf, mid, top, bpf4j_root_call — four ips whatever Java frames made the call — so both
 * engines store the same ids, also across the two engines' runs.
 */
class RootCallTest {
    @Test
    void stacksEndAtTheThunkAndAreTheSameIdsUnderBothEngines() {
        long top = TestLib.address("top");
        assertThat(RootCall.get().call(top, 2)).isEqualTo(14 + 17);
        List<List<Long>> perEngine = new ArrayList<>();
        for (Engines engine : List.of(Engines.INTERP, Engines.JIT_DIRECT)) {
            try (MapTable maps = MapTable.create(List.of(new MapDefinition("stacks", MapType.STACK_TRACE, 4, 127 * 8, 1024, 0)))) {
                HelperRegistry helpers = StackHelpers.register(HelperRegistry.builder(), maps).build();
                long out = NativeMemory.allocate(16);
                Program p = P.stackIdPair(maps.handle(0), out);
                try (Executable x = engine.load(p, LoadOptions.defaults().withHelpers(helpers));
                     ProbeLink link = NativeProbes.attach(TestLib.address("leaf"), "leaf", ProbeProgram.of(x, List.of(new MemoryRegion("out", out, 16, true))))) {
                    assertThat(RootCall.get().call(top, 2)).isEqualTo(14 + 17);
                    assertThat(link.errors()).as("%s", link.lastError()).isZero();
                    StackTraceView view = StackTraceView.of((StackTraceMap) maps.map(0));
                    List<Long> ids = List.of(NativeMemory.getLong(out), NativeMemory.getLong(out + 8));
                    for (long id : ids) {
                        List<Frame> frames = view.frames((int) id);
                        assertThat(frames).extracting(Frame::symbol).containsExactly("leaf", "mid", "top", RootCall.SYMBOL);
                        assertThat(RootCall.get().contains(frames.get(3).ip())).isTrue();
                    }
                    List<Long> all = new ArrayList<>(ids);
                    for (long id : ids) all.addAll(view.ips((int) id).orElseThrow());
                    perEngine.add(all);
                } finally {
                    NativeMemory.free(out);
                }
            }
        }
        assertThat(perEngine.get(1)).isEqualTo(perEngine.get(0));
    }

    @Test
    void refusesAddressZero() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> RootCall.get().call(0, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("address 0");
    }
}
