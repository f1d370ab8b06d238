package dev.bpf4j.jit.probe;

import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;

import static dev.bpf4j.isa.Opcodes.DW;
import static dev.bpf4j.jit.probe.P.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Return probes (uretprobe-style) on {@link RetLib}, on every engine: the program runs as the
 * function returns with ctx = the registers then — ax the return value, ip the return address in
 * the caller (objdump's address after the call), sp as after the return (the entry's sp + 8) —
 * the function still returns its value; recursion probes every level; a recursion deeper than
 * {@value ReturnTrampoline#MAX_ACTIVE} probes the outermost 64 returns and counts the others
 * missed; a function left by longjmp is counted lost, never run, and the process goes on.
 */
class ReturnProbeTest {
    /** Per recorder at {@code base}: count, sum of ax, last ax, last ip, last sp. */
    static final int COUNT = 0, SUM_AX = 8, AX = 16, IP = 24, SP = 32, RECORD = 40;

    static Program recorder(String name, long block, int base) {
        return prog(name,
                lddw(3, block + base), mov64(4, 1), atomicAdd(3, 4, COUNT),
                ldx(DW, 2, 1, PtRegsLayout.AX), atomicAdd(3, 2, SUM_AX), stx(DW, 3, 2, AX),
                ldx(DW, 2, 1, PtRegsLayout.IP), stx(DW, 3, 2, IP),
                ldx(DW, 2, 1, PtRegsLayout.SP), stx(DW, 3, 2, SP),
                mov64(0, 0), exit());
    }

    @ParameterizedTest
    @EnumSource(Engines.class)
    void returnValueReturnSiteAndSpAsLinuxUretprobe(Engines engine) {
        long block = zeroed(2 * RECORD);
        List<MemoryRegion> regions = List.of(new MemoryRegion("records", block, 2 * RECORD, true));
        long mid = RetLib.address("mid");
        byte[] original = ProcessText.read(mid, 16);
        List<Long> sites = RetLib.returnSites("top", "mid");
        assertThat(sites).hasSize(2);
        try (Executable in = engine.load(recorder("at_entry", block, 0), LoadOptions.defaults());
             Executable out = engine.load(recorder("at_return", block, RECORD), LoadOptions.defaults());
             ProbeLink entry = NativeProbes.attach(mid, "mid", engine.probe(in, regions));
             ProbeLink ret = NativeProbes.attachReturn(mid, "mid", engine.probe(out, regions))) {
            assertThat(ret.atReturn()).isTrue();
            assertThat(entry.atReturn()).isFalse();
            assertThat(RetLib.call1("top", 5)).isEqualTo(17 + 20);
            assertThat(NativeMemory.getLong(block + RECORD + COUNT)).isEqualTo(2);
            assertThat(NativeMemory.getLong(block + RECORD + SUM_AX)).isEqualTo(17 + 20);
            assertThat(NativeMemory.getLong(block + RECORD + AX)).as("PT_REGS_RC of mid(6)").isEqualTo(20);
            assertThat(NativeMemory.getLong(block + RECORD + IP)).as("ip = the second return site in top").isEqualTo(sites.get(1));
            assertThat(NativeMemory.getLong(block + RECORD + SP)).as("sp after the return").isEqualTo(NativeMemory.getLong(block + SP) + 8);
            assertThat(NativeMemory.getLong(block + IP)).as("entry ip = the function").isEqualTo(mid);
            assertThat(List.of(entry.hits(), ret.hits(), ret.errors(), ret.returnsMissed(), ret.returnsLost())).containsExactly(2L, 2L, 0L, 0L, 0L);
            assertThat(RetLib.call1("mid", 1)).isEqualTo(5);
            assertThat(NativeMemory.getLong(block + RECORD + IP)).as("returns into the JVM's caller").isNotIn(sites);
        }
        assertThat(ProcessText.read(mid, 16)).isEqualTo(original);
        assertThat(RetLib.call1("top", 5)).isEqualTo(37);
        assertThat(NativeMemory.getLong(block + RECORD + COUNT)).isEqualTo(3);
        NativeMemory.free(block);
    }

    @ParameterizedTest
    @EnumSource(Engines.class)
    void recursionProbesEveryLevelUpToTheDepthLimit(Engines engine) {
        long block = zeroed(RECORD);
        List<MemoryRegion> regions = List.of(new MemoryRegion("records", block, RECORD, true));
        try (Executable x = engine.load(recorder("rec_return", block, 0), LoadOptions.defaults());
             ProbeLink ret = NativeProbes.attachReturn(RetLib.address("rec"), "rec", engine.probe(x, regions))) {
            assertThat(RetLib.call1("rec", 3)).isEqualTo(4);
            // rec(0) = 1 returns first, rec(3) = 4 last
            assertThat(NativeMemory.getLong(block + COUNT)).isEqualTo(4);
            assertThat(NativeMemory.getLong(block + SUM_AX)).isEqualTo(1 + 2 + 3 + 4);
            assertThat(NativeMemory.getLong(block + AX)).isEqualTo(4);
            List<Long> inRec = RetLib.returnSites("rec", "rec");
            assertThat(inRec).hasSize(1);
            NativeMemory.setMemory(block, RECORD, (byte) 0);
            // rec(100): 101 nested calls; the outermost 64 (rec(100) .. rec(37), returning 101 .. 38) are probed
            assertThat(RetLib.call1("rec", 100)).isEqualTo(101);
            assertThat(NativeMemory.getLong(block + COUNT)).isEqualTo(ReturnTrampoline.MAX_ACTIVE);
            assertThat(NativeMemory.getLong(block + SUM_AX)).isEqualTo((38 + 101) * 64 / 2);
            assertThat(ret.returnsMissed()).isEqualTo(101 - ReturnTrampoline.MAX_ACTIVE);
            assertThat(ret.returnsLost()).isZero();
            assertThat(ret.hits()).isEqualTo(4 + 64);
        }
        NativeMemory.free(block);
    }

    @ParameterizedTest
    @EnumSource(Engines.class)
    void aFunctionLeftByLongjmpIsCountedLost(Engines engine) {
        long block = zeroed(RECORD);
        List<MemoryRegion> regions = List.of(new MemoryRegion("records", block, RECORD, true));
        try (Executable x = engine.load(recorder("jumped_return", block, 0), LoadOptions.defaults());
             ProbeLink ret = NativeProbes.attachReturn(RetLib.address("jumped"), "jumped", engine.probe(x, regions))) {
            for (int v = 1; v <= 5; v++) assertThat(RetLib.call1("catcher", v)).isEqualTo(10L * v);
            // the 5th is still pending: dropped by the next call at the same depth
            assertThat(ret.returnsLost()).isEqualTo(4);
            assertThat(NativeMemory.getLong(block + COUNT)).isZero();
            assertThat(RetLib.call1("catcher", 0)).isEqualTo(-1);
            assertThat(ret.returnsLost()).isEqualTo(5);
            assertThat(NativeMemory.getLong(block + COUNT)).isEqualTo(1);
            assertThat(NativeMemory.getLong(block + AX)).isEqualTo(-1);
            assertThat(ret.hits()).isEqualTo(1);
        }
        NativeMemory.free(block);
    }

    /**
     * tail jumps to mid: mid's entry finds its return address slot already holding the trampoline
     * and chains; both return programs run at the one return, mid's first, both with ip = the real
     * return address (Linux copies it into a chained return_instance).
     */
    @ParameterizedTest
    @EnumSource(Engines.class)
    void aTailCallChainsTheTwoReturns(Engines engine) {
        long block = zeroed(2 * RECORD + 8);
        List<MemoryRegion> regions = List.of(new MemoryRegion("records", block, 2 * RECORD + 8, true));
        String dump = PatchableLibrary.run(List.of("objdump", "-d", "--no-show-raw-insn", RetLib.path()));
        String tailBody = dump.substring(dump.indexOf("<tail>:"), dump.indexOf("\n\n", dump.indexOf("<tail>:")));
        assertThat(tailBody).as("gcc made tail() a tail call").containsPattern("jmp\\s+[0-9a-f]+ <mid");
        try (Executable m = engine.load(recorder("mid_return", block, 0), LoadOptions.defaults());
             Executable t = engine.load(recorder("tail_return", block, RECORD), LoadOptions.defaults());
             ProbeLink tailLink = NativeProbes.attachReturn(RetLib.address("tail"), "tail", engine.probe(t, regions));
             ProbeLink midLink = NativeProbes.attachReturn(RetLib.address("mid"), "mid", engine.probe(m, regions))) {
            assertThat(RootCall.get().call(RetLib.address("tail"), 4)).isEqualTo(17);
            for (int base : new int[]{0, RECORD}) {
                assertThat(NativeMemory.getLong(block + base + COUNT)).isEqualTo(1);
                assertThat(NativeMemory.getLong(block + base + AX)).isEqualTo(17);
                assertThat(RootCall.get().contains(NativeMemory.getLong(block + base + IP))).as("ip = the return into bpf4j_root_call").isTrue();
            }
            assertThat(NativeMemory.getLong(block + SP)).isEqualTo(NativeMemory.getLong(block + RECORD + SP));
            assertThat(List.of(midLink.returnsLost(), tailLink.returnsLost(), midLink.returnsMissed())).containsOnly(0L);
            assertThat(RetLib.call1("mid", 1)).isEqualTo(5);
            assertThat(NativeMemory.getLong(block + COUNT)).isEqualTo(2);
            assertThat(NativeMemory.getLong(block + RECORD + COUNT)).isEqualTo(1);
        }
        NativeMemory.free(block);
    }

    /**
     * Sites whose entry instructions are displaced: ae_mid of a plain gcc -O2 build (sub rsp, 8;
     * mov esi, 7 relocated) and libc's labs (mov; neg) — the return probe sees their results.
     */
    @ParameterizedTest
    @EnumSource(Engines.class)
    void displacedEntriesAndLibc(Engines engine) {
        long block = zeroed(2 * RECORD);
        List<MemoryRegion> regions = List.of(new MemoryRegion("records", block, 2 * RECORD, true));
        long aeMid = AnyEntryLib.O2.address("ae_mid"), labs = NativeProbes.address("libc.so.6", "labs");
        try (Executable a = engine.load(recorder("ae_mid_return", block, 0), LoadOptions.defaults());
             Executable l = engine.load(recorder("labs_return", block, RECORD), LoadOptions.defaults());
             ProbeLink m = NativeProbes.attachReturn(aeMid, "ae_mid", engine.probe(a, regions));
             ProbeLink b = NativeProbes.attachReturn(labs, "labs", engine.probe(l, regions))) {
            assertThat(TestLib.call1(aeMid, 5)).isEqualTo(23);
            assertThat(TestLib.call1(labs, -42)).isEqualTo(42);
            assertThat(TestLib.call1(labs, 7)).isEqualTo(7);
            assertThat(NativeMemory.getLong(block + AX)).isEqualTo(23);
            assertThat(NativeMemory.getLong(block + RECORD + COUNT)).as("labs returns (the JVM may call it too)").isGreaterThanOrEqualTo(2);
            assertThat(m.hits()).isEqualTo(1);
            assertThat(m.errors() + b.errors()).isZero();
        }
        NativeMemory.free(block);
    }

    static long zeroed(int bytes) {
        long a = NativeMemory.allocate(bytes);
        NativeMemory.setMemory(a, bytes, (byte) 0);
        return a;
    }
}
