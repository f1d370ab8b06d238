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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * bpf_get_stackid from an interpreted and a JIT program attached to the same displaced-entry probe
 * (ae_leaf: frameless at -O2; ae_mid: push rbp; mov esi, 7 displaced at -O2, push rbp; mov rbp, rsp;
 * sub rsp at -O0), called through {@link RootCall}: both programs store the same ids and the same
 * ips, and the frames are exactly the call path down from the root.
 */
class AnyEntryStackIdTest {
    @ParameterizedTest
    @EnumSource(value = AnyEntryLib.class, names = {"O2FP", "O0"})
    void interpreterAndJitOnOneProbeSeeTheSameStacks(AnyEntryLib lib) {
        long top = lib.address("ae_top");
        for (String fn : List.of("ae_leaf", "ae_mid")) {
            List<String> expected = fn.equals("ae_leaf") ? List.of("ae_leaf", "ae_mid", "ae_top", RootCall.SYMBOL) : List.of("ae_mid", "ae_top", RootCall.SYMBOL);
            List<MapTable> maps = new ArrayList<>();
            List<Executable> programs = new ArrayList<>();
            List<ProbeLink> links = new ArrayList<>();
            long out = NativeMemory.allocate(32);
            try {
                int k = 0;
                for (Engines engine : List.of(Engines.INTERP, Engines.JIT_DIRECT)) {
                    MapTable m = MapTable.create(List.of(new MapDefinition("stacks", MapType.STACK_TRACE, 4, 127 * 8, 1024, 0)));
                    maps.add(m);
                    HelperRegistry helpers = StackHelpers.register(HelperRegistry.builder(), m).build();
                    Program p = P.stackIdPair(m.handle(0), out + 16L * k++);
                    Executable x = engine.load(p, LoadOptions.defaults().withHelpers(helpers));
                    programs.add(x);
                    links.add(NativeProbes.attach(lib.address(fn), fn, ProbeProgram.of(x, List.of(new MemoryRegion("out", out, 32, true)))));
                }
                assertThat(RootCall.get().call(top, 2)).isEqualTo(14 + 17);
                List<List<Long>> perEngine = new ArrayList<>();
                for (int e = 0; e < 2; e++) {
                    assertThat(links.get(e).errors()).as("%s", links.get(e).lastError()).isZero();
                    assertThat(links.get(e).hits()).isEqualTo(2);
                    StackTraceView view = StackTraceView.of((StackTraceMap) maps.get(e).map(0));
                    List<Long> all = new ArrayList<>();
                    for (int i = 0; i < 2; i++) {
                        long id = NativeMemory.getLong(out + 16L * e + 8L * i);
                        assertThat(id).as("%s %s stack id", lib, fn).isNotNegative();
                        assertThat(view.frames((int) id)).extracting(Frame::symbol).as("%s %s", lib, fn).containsExactlyElementsOf(expected);
                        all.add(id);
                        all.addAll(view.ips((int) id).orElseThrow());
                    }
                    assertThat(all.get(0)).as("two call sites of mid in top: two stacks").isNotEqualTo(all.get(expected.size() + 1));
                    perEngine.add(all);
                }
                assertThat(perEngine.get(1)).as("%s %s: JIT = interpreter", lib, fn).isEqualTo(perEngine.get(0));
                assertThat(perEngine.get(0).get(1)).isEqualTo(lib.address(fn));
            } finally {
                links.forEach(ProbeLink::close);
                programs.forEach(Executable::close);
                maps.forEach(MapTable::close);
                NativeMemory.free(out);
            }
        }
    }
}
