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
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * bpf_get_stackid in a probe on leaf: the trace starts at the probe site's pt_regs, so under the
 * interpreter and the JIT the stacks begin with the same ips: leaf, mid, top. The two hits come
 * through the two different call sites of mid in top: two stacks that share leaf and mid's
 * return address and differ in top's. (What lies above the jffi call is the JVM's business and
 * may differ between the two engines' runs, so ids are compared within a run only.)
 */
class ProbeStackIdTest {
    @Test
    void sameStackIdsUnderBothEnginesStartingAtTheTracedFunction() {
        List<List<Long>> prefixes = new ArrayList<>();
        for (Engines engine : Engines.values()) {
            try (MapTable maps = MapTable.create(List.of(new MapDefinition("stacks", MapType.STACK_TRACE, 4, 127 * 8, 1024, 0)))) {
                HelperRegistry helpers = StackHelpers.register(HelperRegistry.builder(), maps).build();
                long out = NativeMemory.allocate(16);
                Program p = P.stackIdPair(maps.handle(0), out);
                List<MemoryRegion> regions = List.of(new MemoryRegion("out", out, 16, true));
                try (Executable x = engine.load(p, LoadOptions.defaults().withHelpers(helpers));
                     ProbeLink link = NativeProbes.attach(TestLib.address("leaf"), "leaf", engine.probe(x, regions))) {
                    assertThat(link.program().direct()).as("JIT code with a Java helper runs direct").isEqualTo(engine == Engines.JIT_DIRECT);
                    assertThat(TestLib.call1(TestLib.address("top"), 2)).isEqualTo(14 + 17);
                    assertThat(link.errors()).as("%s", link.lastError()).isZero();
                    long first = NativeMemory.getLong(out), second = NativeMemory.getLong(out + 8);
                    assertThat(first).isNotNegative();
                    assertThat(second).isNotNegative().isNotEqualTo(first);
                    StackTraceView view = StackTraceView.of((StackTraceMap) maps.map(0));
                    for (long id : List.of(first, second)) {
                        List<Frame> frames = view.frames((int) id);
                        assertThat(frames.stream().limit(3).map(Frame::symbol).collect(Collectors.toList())).containsExactly("leaf", "mid", "top");
                    }
                    List<Long> a = view.ips((int) first).orElseThrow(), b = view.ips((int) second).orElseThrow();
                    assertThat(a.get(0)).isEqualTo(TestLib.address("leaf"));
                    assertThat(b.subList(0, 2)).isEqualTo(a.subList(0, 2));
                    assertThat(b.get(2)).isNotEqualTo(a.get(2));
                    prefixes.add(List.of(a.get(0), a.get(1), a.get(2), b.get(2)));
                } finally {
                    NativeMemory.free(out);
                }
            }
        }
        assertThat(prefixes.get(1)).isEqualTo(prefixes.get(0));
        assertThat(prefixes.get(2)).isEqualTo(prefixes.get(0));
    }
}
