package dev.bpf4j.jit.probe;

import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.maps.StackTraceMap;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.stack.StackHelpers;
import dev.bpf4j.stack.StackTraceView;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The stack stays walkable while return addresses are swapped: {@code bpf_get_stackid} in an entry
 * probe on leaf gives the same ids and ips with return probes on its callers (mid and top, or every
 * level of a recursion) as without, on every engine; and a stackid program on a return probe,
 * interpreter and JIT attached to the same return at once, gives the same ids, starting at the
 * return site in the caller — through a caller that is itself return-probed.
 */
class ReturnProbeStackTest {
    /** ips of the stacks an entry stackid program on leaf records while {@code call} runs, innermost first. */
    private static List<List<Long>> leafStacks(Engines engine, Supplier<Long> call, long expected) {
        try (MapTable maps = MapTable.create(List.of(new MapDefinition("stacks", MapType.STACK_TRACE, 4, 127 * 8, 1024, 0)))) {
            HelperRegistry helpers = StackHelpers.register(HelperRegistry.builder(), maps).build();
            long out = ReturnProbeTest.zeroed(16);
            List<MemoryRegion> regions = List.of(new MemoryRegion("out", out, 16, true));
            try (Executable x = engine.load(P.stackIdPair(maps.handle(0), out), LoadOptions.defaults().withHelpers(helpers));
                 ProbeLink link = NativeProbes.attach(RetLib.address("leaf"), "leaf", engine.probe(x, regions))) {
                assertThat(call.get()).isEqualTo(expected);
                assertThat(link.errors()).as("%s", link.lastError()).isZero();
                StackTraceView view = StackTraceView.of((StackTraceMap) maps.map(0));
                List<List<Long>> stacks = new ArrayList<>();
                assertThat(link.hits()).isBetween(1L, 2L);
                List<Long> ids = link.hits() == 2 ? List.of(NativeMemory.getLong(out), NativeMemory.getLong(out + 8)) : List.of(NativeMemory.getLong(out + 8));
                for (long id : ids) {
                    assertThat(id).isNotNegative();
                    List<Long> ips = new ArrayList<>(view.ips((int) id).orElseThrow());
                    ips.add(0, id);
                    stacks.add(ips);
                }
                return stacks;
            } finally {
                NativeMemory.free(out);
            }
        }
    }

    private static List<ProbeLink> countReturns(long block, String... fns) {
        List<ProbeLink> links = new ArrayList<>();
        List<MemoryRegion> regions = List.of(new MemoryRegion("records", block, ReturnProbeTest.RECORD, true));
        Executable x = Engines.JIT_DIRECT.load(ReturnProbeTest.recorder("count", block, 0), LoadOptions.defaults());
        for (String fn : fns) links.add(NativeProbes.attachReturn(RetLib.address(fn), fn, ProbeProgram.of(x, regions)));
        return links;
    }

    @Test
    void entryStacksAreTheSameWithTheCallersReturnProbed() {
        Supplier<Long> top = () -> RootCall.get().call(RetLib.address("top"), 2);
        Supplier<Long> rec = () -> RootCall.get().call(RetLib.address("rec"), 3);
        for (Engines engine : Engines.values()) {
            List<List<Long>> plainTop = leafStacks(engine, top, 8 + 11), plainRec = leafStacks(engine, rec, 4);
            assertThat(plainTop.get(0)).hasSize(1 + 4);   // id, leaf, mid, top, bpf4j_root_call
            assertThat(plainRec.get(0)).hasSize(1 + 6);   // id, leaf, rec x4, bpf4j_root_call
            long block = ReturnProbeTest.zeroed(ReturnProbeTest.RECORD);
            List<ProbeLink> links = countReturns(block, "mid", "top", "rec");
            try {
                assertThat(leafStacks(engine, top, 8 + 11)).as(engine + ": leaf under return-probed mid and top").isEqualTo(plainTop);
                assertThat(leafStacks(engine, rec, 4)).as(engine + ": leaf under 4 return-probed rec").isEqualTo(plainRec);
                assertThat(NativeMemory.getLong(block)).as("returns of mid, top and rec seen").isEqualTo(3 + 4);
            } finally {
                links.forEach(ProbeLink::close);
            }
            NativeMemory.free(block);
        }
    }

    @Test
    void returnStacksStartAtTheReturnSiteAndAgreeAcrossEngines() {
        List<Long> inMid = RetLib.returnSites("mid", "leaf"), inTop = RetLib.returnSites("top", "mid");
        long block = ReturnProbeTest.zeroed(ReturnProbeTest.RECORD);
        List<ProbeLink> midReturn = countReturns(block, "mid");
        List<List<List<Long>>> byEngine = new ArrayList<>();
        List<AutoCloseable> open = new ArrayList<>();
        List<long[]> outs = new ArrayList<>();
        List<MapTable> tables = new ArrayList<>();
        try {
            for (Engines engine : Engines.values()) {
                MapTable maps = MapTable.create(List.of(new MapDefinition("stacks", MapType.STACK_TRACE, 4, 127 * 8, 1024, 0)));
                tables.add(maps);
                HelperRegistry helpers = StackHelpers.register(HelperRegistry.builder(), maps).build();
                long out = ReturnProbeTest.zeroed(16);
                outs.add(new long[]{out});
                Executable x = engine.load(P.stackIdPair(maps.handle(0), out), LoadOptions.defaults().withHelpers(helpers));
                open.add(x);
                open.add(NativeProbes.attachReturn(RetLib.address("leaf"), "leaf", engine.probe(x, List.of(new MemoryRegion("out", out, 16, true)))));
            }
            assertThat(RootCall.get().call(RetLib.address("top"), 2)).isEqualTo(8 + 11);
            assertThat(NativeMemory.getLong(block)).isEqualTo(2);
            for (int k = 0; k < tables.size(); k++) {
                StackTraceView view = StackTraceView.of((StackTraceMap) tables.get(k).map(0));
                List<List<Long>> stacks = new ArrayList<>();
                for (long id : List.of(NativeMemory.getLong(outs.get(k)[0]), NativeMemory.getLong(outs.get(k)[0] + 8))) {
                    assertThat(id).isNotNegative();
                    List<Long> ips = new ArrayList<>(view.ips((int) id).orElseThrow());
                    assertThat(ips).hasSize(3);
                    assertThat(RootCall.get().contains(ips.get(2))).isTrue();
                    ips.add(0, id);
                    stacks.add(ips);
                }
                byEngine.add(stacks);
            }
        } finally {
            for (int k = open.size() - 1; k >= 0; k--) {
                try { open.get(k).close(); } catch (Exception e) { throw new AssertionError(e); }
            }
            midReturn.forEach(ProbeLink::close);
            tables.forEach(MapTable::close);
            outs.forEach(o -> NativeMemory.free(o[0]));
        }
        // leaf returns into mid, whose own return address is swapped: the walk still names top's call sites
        assertThat(byEngine.get(0).get(0).subList(1, 3)).containsExactly(inMid.get(0), inTop.get(0));
        assertThat(byEngine.get(0).get(1).subList(1, 3)).containsExactly(inMid.get(0), inTop.get(1));
        assertThat(byEngine.get(1)).isEqualTo(byEngine.get(0));
        assertThat(byEngine.get(2)).isEqualTo(byEngine.get(0));
        NativeMemory.free(block);
    }
}
