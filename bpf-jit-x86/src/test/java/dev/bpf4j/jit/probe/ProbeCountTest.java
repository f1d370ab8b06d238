package dev.bpf4j.jit.probe;

import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;

import static dev.bpf4j.isa.Opcodes.DW;
import static dev.bpf4j.jit.probe.P.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * kprobe-style programs on top, mid and leaf count their hits and record PT_REGS_PARM1/2 in a
 * counter block; calling the tree through jffi gives the counts and arguments the call tree
 * implies, under every engine, and the traced functions still return the right values. Detaching
 * puts back the original bytes and the counts stop.
 */
class ProbeCountTest {
    private static final String[] FNS = {"top", "mid", "leaf"};
    /** Per function k: hits at 8k, last di at 32 + 8k, last si at 64 + 8k. */
    private static final int BLOCK = 96;

    /** counts[k] += 1; di[k] = PT_REGS_PARM1(ctx); si[k] = PT_REGS_PARM2(ctx). */
    static dev.bpf4j.program.Program counter(int k, long block) {
        return prog("count_" + FNS[k],
                lddw(3, block), mov64(4, 1), atomicAdd(3, 4, 8 * k),
                ldx(DW, 2, 1, PtRegsLayout.DI), stx(DW, 3, 2, 32 + 8 * k),
                ldx(DW, 2, 1, PtRegsLayout.SI), stx(DW, 3, 2, 64 + 8 * k),
                mov64(0, 0), exit());
    }

    @ParameterizedTest
    @EnumSource(Engines.class)
    void countsHitsAndArgumentsOfTheCallTree(Engines engine) {
        long top = TestLib.address("top");
        long block = NativeMemory.allocate(BLOCK);
        NativeMemory.setMemory(block, BLOCK, (byte) 0);
        List<MemoryRegion> regions = List.of(new MemoryRegion("counters", block, BLOCK, true));
        List<byte[]> original = new ArrayList<>();
        List<Executable> loaded = new ArrayList<>();
        List<ProbeLink> links = new ArrayList<>();
        try {
            for (int k = 0; k < FNS.length; k++) {
                long fn = TestLib.address(FNS[k]);
                original.add(ProcessText.read(fn, 16));
                Executable x = engine.load(counter(k, block), LoadOptions.defaults());
                loaded.add(x);
                ProbeLink link = NativeProbes.attach(fn, FNS[k], engine.probe(x, regions));
                assertThat(link.program().direct()).isEqualTo(engine == Engines.JIT_DIRECT);
                links.add(link);
            }
            assertThat(ProcessText.read(top, 1)[0]).isEqualTo((byte) 0xe8); // call trampoline
            assertThat(TestLib.call1(top, 5)).isEqualTo(23 + 26);
            assertThat(counts(block)).containsExactly(1L, 2L, 2L);
            assertThat(NativeMemory.getLong(block + 32)).isEqualTo(5);      // top(5)
            assertThat(NativeMemory.getLong(block + 40)).isEqualTo(6);      // mid(6) last
            assertThat(NativeMemory.getLong(block + 48)).isEqualTo(6);      // leaf(6, 7) last
            assertThat(NativeMemory.getLong(block + 80)).isEqualTo(7);
            assertThat(TestLib.call2(TestLib.address("leaf"), 100, -4)).isEqualTo(296);
            assertThat(counts(block)).containsExactly(1L, 2L, 3L);
            assertThat(NativeMemory.getLong(block + 48)).isEqualTo(100);
            assertThat(NativeMemory.getLong(block + 80)).isEqualTo(-4);
            assertThat(links).extracting(ProbeLink::hits).containsExactly(1L, 2L, 3L);
            assertThat(links).extracting(ProbeLink::errors).containsOnly(0L);
        } finally {
            links.forEach(ProbeLink::close);
            loaded.forEach(Executable::close);
        }
        for (int k = 0; k < FNS.length; k++) {
            assertThat(ProcessText.read(TestLib.address(FNS[k]), 16)).as(FNS[k] + " restored").isEqualTo(original.get(k));
        }
        assertThat(TestLib.call1(top, 1)).isEqualTo(11 + 14);
        assertThat(counts(block)).containsExactly(1L, 2L, 3L);
        NativeMemory.free(block);
    }

    @Test
    void severalProgramsOnOneFunctionRunInAttachOrderAndDetachOneByOne() {
        long leaf = TestLib.address("leaf");
        long block = NativeMemory.allocate(BLOCK);
        NativeMemory.setMemory(block, BLOCK, (byte) 0);
        List<MemoryRegion> regions = List.of(new MemoryRegion("counters", block, BLOCK, true));
        byte[] original = ProcessText.read(leaf, 8);
        try (Executable a = Engines.JIT_DIRECT.load(counter(0, block), LoadOptions.defaults());
             Executable b = Engines.INTERP.load(counter(1, block), LoadOptions.defaults());
             Executable c = Engines.JIT_DIRECT.load(counter(2, block), LoadOptions.defaults())) {
            ProbeLink la = NativeProbes.attach(leaf, "leaf", ProbeProgram.of(a, regions));
            ProbeLink lb = NativeProbes.attach(leaf, "leaf", ProbeProgram.of(b, regions));
            ProbeLink lc = NativeProbes.attach(leaf, "leaf", ProbeProgram.of(c, regions));
            assertThat(TestLib.call2(leaf, 2, 3)).isEqualTo(9);
            assertThat(counts(block)).containsExactly(1L, 1L, 1L);
            lb.close();
            assertThat(TestLib.call2(leaf, 2, 3)).isEqualTo(9);
            assertThat(counts(block)).containsExactly(2L, 1L, 2L);
            assertThat(lb.attached()).isFalse();
            la.close();
            assertThat(ProcessText.read(leaf, 1)[0]).isEqualTo((byte) 0xe8);
            lc.close();
            assertThat(ProcessText.read(leaf, 8)).isEqualTo(original);
            assertThat(TestLib.call2(leaf, 2, 3)).isEqualTo(9);
            assertThat(counts(block)).containsExactly(2L, 1L, 2L);
        } finally {
            NativeMemory.free(block);
        }
    }

    @Test
    void endbr64EntryIsPatchedAfterTheLandingPad() {
        long fn = NativeProbes.address(TestLib.cetPath(), "cet_leaf");
        assertThat(ProcessText.read(fn, 4)).isEqualTo(PatchSite.ENDBR64);
        long block = NativeMemory.allocate(BLOCK);
        NativeMemory.setMemory(block, BLOCK, (byte) 0);
        List<MemoryRegion> regions = List.of(new MemoryRegion("counters", block, BLOCK, true));
        try (Executable x = Engines.JIT_DIRECT.load(counter(0, block), LoadOptions.defaults());
             ProbeLink link = NativeProbes.attach(fn, "cet_leaf", ProbeProgram.of(x, regions))) {
            assertThat(ProcessText.read(fn, 4)).isEqualTo(PatchSite.ENDBR64);
            assertThat(ProcessText.read(fn + 4, 1)[0]).isEqualTo((byte) 0xe8);
            assertThat(TestLib.call1(fn, 8)).isEqualTo(40);
            assertThat(link.hits()).isEqualTo(1);
            assertThat(NativeMemory.getLong(block + 32)).isEqualTo(8);
        } finally {
            NativeMemory.free(block);
        }
        assertThat(ProcessText.read(fn + 4, 5)).isEqualTo(PatchSite.NOP5);
    }

    /** Floating-point arguments (xmm0) survive the probe, whatever the program's engine does with xmm registers. */
    @ParameterizedTest
    @EnumSource(Engines.class)
    void floatingPointArgumentsSurvive(Engines engine) {
        long scaled = TestLib.address("scaled"), scale = TestLib.address("scale");
        long block = NativeMemory.allocate(BLOCK);
        NativeMemory.setMemory(block, BLOCK, (byte) 0);
        List<MemoryRegion> regions = List.of(new MemoryRegion("counters", block, BLOCK, true));
        try (Executable x = engine.load(counter(0, block), LoadOptions.defaults());
             ProbeLink link = NativeProbes.attach(scaled, "scaled", engine.probe(x, regions))) {
            for (int i = 0; i < 1000; i++) assertThat(TestLib.call2(scale, 3 + i, 4)).isEqualTo(2L * (4L * (3 + i)) + 1);
            assertThat(link.hits()).isEqualTo(1000);
            assertThat(NativeMemory.getLong(block + 32)).as("di = n").isEqualTo(4);
        } finally {
            NativeMemory.free(block);
        }
    }

    private static List<Long> counts(long block) {
        return List.of(NativeMemory.getLong(block), NativeMemory.getLong(block + 8), NativeMemory.getLong(block + 16));
    }
}
