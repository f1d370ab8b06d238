package dev.bpf4j.it;

import dev.bpf4j.api.Engines;
import dev.bpf4j.api.MapDump;
import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.Helper;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.HelperSpec;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bpf_map_lookup_elem} on an ARRAY map, which both engines inline where r1 is a constant
 * handle and the key lies in the current frame (bpf-jit-x86 {@code InlineArrayLookup}, bpf-interp
 * {@code MapHelperInlining}), against a reference run that always calls the helper (the interpreter
 * with the helper's inlining withheld): the same r0, map contents and errors (kind, pc) for keys in
 * and out of range, keys at the frame's edges and outside it, wild key pointers, r1 not a constant,
 * other map types and value sizes that are and are not powers of two. The helper's Java body counts
 * its calls, so the test also sees which calls each engine inlined.
 */
class ArrayLookupInliningTest {
    static final int CTX_LEN = 16;

    @BeforeAll
    static void bothEngines() {
        Assumptions.assumeTrue(Engines.available().stream().anyMatch(e -> e.name().equals("jit")), "no JIT on this platform");
    }

    /** What one engine did: r0 or the error, the first map's bytes after the runs, and how often the helper body ran. */
    record Outcome(Long r0, ErrorKind kind, int pc, String map, int helperCalls) {}

    static Insn mov(int dst, int imm) { return new Insn(ALU64 | MOV | K, dst, 0, 0, imm); }
    static Insn movr(int dst, int src) { return new Insn(ALU64 | MOV | X, dst, src, 0, 0); }
    static Insn addi(int dst, int imm) { return new Insn(ALU64 | ADD | K, dst, 0, 0, imm); }
    static Insn stw(int dst, int off, int imm) { return new Insn(ST | MEM | W, dst, 0, off, imm); }
    static Insn ldxdw(int dst, int src, int off) { return new Insn(LDX | MEM | DW, dst, src, off, 0); }
    static Insn stxdw(int dst, int src, int off) { return new Insn(STX | MEM | DW, dst, src, off, 0); }
    static Insn jeqi(int dst, int imm, int off) { return new Insn(JMP | JEQ | K, dst, 0, off, imm); }
    static Insn ja(int off) { return new Insn(JMP | JA, 0, 0, off, 0); }
    static Insn lookup() { return new Insn(JMP | CALL, 0, CALL_HELPER, 0, HelperIds.MAP_LOOKUP_ELEM); }
    static Insn exit() { return new Insn(JMP | EXIT, 0, 0, 0, 0); }
    static Insn[] lddw(int dst, long v) {
        return new Insn[]{new Insn(LDDW, dst, PSEUDO_IMM64, 0, (int) v), new Insn(0, 0, 0, 0, (int) (v >>> 32))};
    }

    /** Instructions, where {@code MAP} (an lddw placeholder) becomes {@code r1 = handle of map 0}. */
    static final Insn MAP = new Insn(LDDW, 1, 0x7, 0, 0);
    static final Insn MAP2 = new Insn(LDDW, 1, 0x6, 0, 0); // r1 = handle of map 1

    static Program program(MapTable maps, Insn... insns) {
        List<Insn> out = new ArrayList<>();
        for (Insn i : insns) {
            if (i == MAP || i == MAP2) out.addAll(Arrays.asList(lddw(1, maps.handle(i == MAP ? 0 : 1))));
            else out.add(i);
        }
        return new Program("lookup", out);
    }

    /**
     * The counter program with {@code key} stored at r10-8 and r2 = r10 + keyAt: v = lookup(map, r2);
     * if v == NULL return 1000; v->first += 1; return v->first. r1 (ctx) is saved in r6.
     */
    static Insn[] counter(int key, int keyAt) {
        return new Insn[]{movr(6, 1), stw(10, -8, key), movr(2, 10), addi(2, keyAt), MAP, lookup(),
                jeqi(0, 0, 5), ldxdw(1, 0, 0), addi(1, 1), stxdw(0, 1, 0), movr(0, 1), exit(), mov(0, 1000), exit()};
    }

    /** The standard helpers of {@code maps}, with a lookup whose Java body counts its calls in {@code calls}. */
    static HelperRegistry countingLookups(MapTable maps, AtomicInteger calls, boolean inlining) {
        return counting(maps, HelperIds.MAP_LOOKUP_ELEM, calls, inlining);
    }

    /**
     * The standard helpers of {@code maps}, with helper {@code id}'s Java body counting its calls in {@code calls};
     * {@code inlining}: the helper keeps its layout for the engines to inline, else it has none and is always called.
     */
    static HelperRegistry counting(MapTable maps, int id, AtomicInteger calls, boolean inlining) {
        HelperRegistry all = BpfHelpers.registry(maps);
        HelperSpec real = all.lookup(id).orElseThrow();
        Helper counted = (call, r1, r2, r3, r4, r5) -> {
            calls.incrementAndGet();
            return real.body().call(call, r1, r2, r3, r4, r5);
        };
        HelperRegistry.Builder b = all.toBuilder();
        return (inlining ? b.addForward(real.id(), real.name(), counted, real.lookupInlining()) : b.addForward(real.id(), real.name(), counted)).build();
    }

    static Outcome run(Engine engine, List<MapDefinition> defs, Insn... insns) { return run(engine, defs, m -> {}, false, insns); }

    static Outcome run(Engine engine, List<MapDefinition> defs, Consumer<BpfMap> setup, boolean closeFirst, Insn... insns) {
        return run(engine, HelperIds.MAP_LOOKUP_ELEM, defs, setup, closeFirst, true, insns);
    }

    /**
     * Two runs of {@code insns} after {@code setup} filled the first map, counting the calls of helper
     * {@code counted}; {@code closeFirst}: that map is closed after the program is loaded and before it runs;
     * {@code inlining}: false withholds the helper's layout from the engine, which then always calls it.
     */
    static Outcome run(Engine engine, int counted, List<MapDefinition> defs, Consumer<BpfMap> setup, boolean closeFirst, boolean inlining,
                       Insn... insns) {
        long ctx = NativeMemory.allocate(CTX_LEN);
        try (MapTable maps = MapTable.create(defs)) {
            setup.accept(maps.map(0));
            NativeMemory.putLong(ctx, 2); // key 2 at ctx + 0
            NativeMemory.putLong(ctx + 8, 0);
            AtomicInteger calls = new AtomicInteger();
            HelperRegistry helpers = counting(maps, counted, calls, inlining);
            RunContext.Builder c = RunContext.builder().arg(1, ctx).region(new MemoryRegion("ctx", ctx, CTX_LEN, false));
            for (BpfMap m : maps.maps()) m.regions().forEach(c::region);
            RunContext context = c.build();
            Long r0 = null;
            ErrorKind kind = null;
            int pc = -1;
            try (Executable e = engine.load(program(maps, insns), LoadOptions.defaults().withHelpers(helpers))) {
                if (closeFirst) maps.map(0).close();
                e.run(context);
                r0 = e.run(context);
            } catch (BpfRuntimeException x) {
                kind = x.kind();
                pc = x.pc();
            }
            return new Outcome(r0, kind, pc, closeFirst ? "closed" : MapDump.json(maps.map(0)), calls.get());
        } finally {
            NativeMemory.free(ctx);
        }
    }

    static Outcome[] agree(List<MapDefinition> defs, Insn... insns) { return agree(defs, m -> {}, insns); }

    static Outcome[] agree(List<MapDefinition> defs, Consumer<BpfMap> setup, Insn... insns) {
        return agree(HelperIds.MAP_LOOKUP_ELEM, defs, setup, insns);
    }

    /**
     * Runs on both engines after {@code setup}, and on the interpreter with helper {@code counted} always
     * called (the reference); all three must agree on everything but the count of that helper's calls.
     * Returns {interp, jit, reference}.
     */
    static Outcome[] agree(int counted, List<MapDefinition> defs, Consumer<BpfMap> setup, Insn... insns) {
        Outcome reference = run(Engines.byName("interp"), counted, defs, setup, false, false, insns);
        Outcome interp = run(Engines.byName("interp"), counted, defs, setup, false, true, insns);
        Outcome jit = run(Engines.byName("jit"), counted, defs, setup, false, true, insns);
        Outcome expected = new Outcome(reference.r0(), reference.kind(), reference.pc(), reference.map(), 0);
        assertThat(new Outcome(interp.r0(), interp.kind(), interp.pc(), interp.map(), 0)).as("interp").isEqualTo(expected);
        assertThat(new Outcome(jit.r0(), jit.kind(), jit.pc(), jit.map(), 0)).as("jit").isEqualTo(expected);
        return new Outcome[]{interp, jit, reference};
    }

    /** The JIT's helper calls, after checking that the interpreter made as many (both engines inline the same array-map calls). */
    static int both(Outcome[] o) {
        assertThat(o[0].helperCalls()).as("the interpreter's helper calls, as the JIT's").isEqualTo(o[1].helperCalls());
        return o[1].helperCalls();
    }

    static List<MapDefinition> array(int valueSize, int maxEntries) {
        return List.of(new MapDefinition("a", MapType.ARRAY, 4, valueSize, maxEntries, 0));
    }

    @Test
    void keyInTheFrameIsInlined() {
        for (int valueSize : new int[]{8, 12, 24, 1, 64}) { // strides 8, 16, 24 (imul), 8, 64
            Outcome[] o = agree(array(valueSize, 4), counter(2, -8));
            assertThat(o[0].r0()).isEqualTo(2); // two runs, one increment each
            assertThat(o[2].helperCalls()).as("the reference calls the helper").isEqualTo(2);
            assertThat(both(o)).as("both engines inline, value size %d", valueSize).isZero();
        }
    }

    @Test
    void indexesPastTheEndLookUpNull() {
        for (int key : new int[]{4, 5, -1, Integer.MIN_VALUE}) {
            Outcome[] o = agree(array(8, 4), counter(key, -8));
            assertThat(o[0].r0()).isEqualTo(1000);
            assertThat(both(o)).isZero();
        }
        assertThat(agree(array(8, 4), counter(3, -8))[0].r0()).isEqualTo(2); // the last element
    }

    @Test
    void keysAtTheFramesEdges() {
        // r10 - 512: the frame's lowest key, inlined (the key there reads zero: element 0)
        Outcome[] low = agree(array(8, 4), counter(2, -512));
        assertThat(low[0].r0()).isEqualTo(2);
        assertThat(both(low)).isZero();
        // r10 - 4: the highest
        Outcome[] high = agree(array(8, 4), counter(2, -4));
        assertThat(both(high)).isZero();
        // r10 - 2 crosses the frame's top, r10 - 513 its bottom: the helper is called and refuses the key
        for (int at : new int[]{-2, -513, 0, 8}) {
            Outcome[] o = agree(array(8, 4), counter(2, at));
            assertThat(o[0].kind()).as("key at r10%+d", at).isEqualTo(ErrorKind.BAD_HELPER_ARGUMENT);
            assertThat(o[0].pc()).isEqualTo(6);
            assertThat(both(o)).isEqualTo(1);
        }
    }

    @Test
    void keysOutsideTheFrameCallTheHelper() {
        // the key in the ctx region (readable): the helper looks it up
        Insn[] inCtx = {movr(2, 1), MAP, lookup(), jeqi(0, 0, 5), ldxdw(1, 0, 0), addi(1, 1), stxdw(0, 1, 0), movr(0, 1), exit(),
                mov(0, 1000), exit()};
        Outcome[] o = agree(array(8, 4), inCtx);
        assertThat(o[0].r0()).isEqualTo(2);
        assertThat(both(o)).isEqualTo(2);
        // a wild key pointer: BAD_HELPER_ARGUMENT at the call on both engines
        Insn[] wild = {lddw(2, 0x1234)[0], lddw(2, 0x1234)[1], MAP, lookup(), exit()};
        o = agree(array(8, 4), wild);
        assertThat(o[0].kind()).isEqualTo(ErrorKind.BAD_HELPER_ARGUMENT);
        assertThat(o[0].pc()).isEqualTo(4);
    }

    @Test
    void r1NotAConstantAtTheCallCallsTheHelper() {
        // r1 = map; then a jump target between the lddw and the call: another path could bring another r1
        Insn[] joined = {stw(10, -8, 1), movr(2, 10), addi(2, -8), MAP, jeqi(2, 1, 0), lookup(), jeqi(0, 0, 2),
                ldxdw(0, 0, 0), exit(), mov(0, 1000), exit()};
        Outcome[] o = agree(array(8, 4), joined);
        assertThat(o[0].r0()).isZero();
        // jeqi(..., 0) jumps to the next slot, which makes the call a jump target
        assertThat(both(o)).isEqualTo(2);
        // r1 moved from another register
        Insn[] moved = {stw(10, -8, 1), movr(2, 10), addi(2, -8), MAP, movr(3, 1), movr(1, 3), lookup(),
                jeqi(0, 0, 2), ldxdw(0, 0, 0), exit(), mov(0, 1000), exit()};
        o = agree(array(8, 4), moved);
        assertThat(both(o)).isEqualTo(2);
    }

    @Test
    void aClosedMapIsRefusedByTheHelper() {
        // no address in freed values: the inlined code sees the map's open word at 0 and calls the helper
        Outcome interp = run(Engines.byName("interp"), array(8, 4), m -> {}, true, counter(2, -8));
        Outcome jit = run(Engines.byName("jit"), array(8, 4), m -> {}, true, counter(2, -8));
        assertThat(interp.kind()).isEqualTo(ErrorKind.BAD_HELPER_ARGUMENT);
        assertThat(interp.pc()).isEqualTo(6);
        assertThat(new Outcome(jit.r0(), jit.kind(), jit.pc(), jit.map(), 0)).isEqualTo(new Outcome(null, interp.kind(), 6, "closed", 0));
        assertThat(interp.helperCalls()).isEqualTo(1);
        assertThat(jit.helperCalls()).isEqualTo(1);
    }

    @Test
    void otherMapTypesTakeTheirOwnPath() {
        // a hash with 2-byte keys: the JIT inlines 4 to 64-byte keys only, the interpreter every size (HashLookupInliningTest)
        List<MapDefinition> hash = List.of(new MapDefinition("a", MapType.HASH, 2, 8, 4, 0));
        Outcome[] o = agree(hash, counter(2, -8));
        assertThat(o[0].r0()).isEqualTo(1000); // empty map
        assertThat(o[1].helperCalls()).isEqualTo(2);
        assertThat(o[0].helperCalls()).isZero();
    }

    /**
     * Runs the counter 20 times on a per-CPU array: the helper calls made, element {@code key}'s values summed
     * over the CPUs, and the runs that found NULL. {@code inlining}: as in {@link #counting}.
     */
    static long[] perCpuCounter(Engine engine, int key, boolean inlining) {
        try (MapTable maps = MapTable.create(List.of(new MapDefinition("a", MapType.PERCPU_ARRAY, 4, 24, 4, 0)))) {
            AtomicInteger calls = new AtomicInteger();
            HelperRegistry counted = countingLookups(maps, calls, inlining);
            RunContext.Builder c = RunContext.builder();
            maps.map(0).regions().forEach(c::region);
            RunContext context = c.build();
            long nulls = 0;
            try (Executable e = engine.load(program(maps, counter(key, -8)), LoadOptions.defaults().withHelpers(counted))) {
                for (int i = 0; i < 20; i++) if (e.run(context) == 1000) nulls++;
            }
            byte[] all4 = maps.map(0).lookup(new byte[]{(byte) key, 0, 0, 0}).orElse(new byte[0]); // none past the end
            long sum = 0;
            for (int cpu = 0; cpu < all4.length / 24; cpu++) sum += java.nio.ByteBuffer.wrap(all4, cpu * 24, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
            return new long[]{calls.get(), sum, nulls};
        }
    }

    @Test
    void perCpuArraysAreInlinedForTheCurrentCpu() {
        // which CPU's value a run increments depends on where the thread runs: compare the sums
        assertThat(perCpuCounter(Engines.byName("interp"), 2, false)).as("the helper").containsExactly(20, 20, 0);
        for (String engine : List.of("interp", "jit", "jvm")) {
            assertThat(perCpuCounter(Engines.byName(engine), 2, true)).as(engine).containsExactly(0, 20, 0); // inlined: no helper call
            // past the end: NULL, nothing counted
            assertThat(perCpuCounter(Engines.byName(engine), 4, true)).as(engine).containsExactly(0, 0, 20);
        }
    }

    @Test
    void twoArraysEachInlinedWithItsOwnLayout() {
        List<MapDefinition> two = List.of(new MapDefinition("a", MapType.ARRAY, 4, 8, 4, 0),
                new MapDefinition("b", MapType.ARRAY, 4, 40, 2, 0));
        // lookup(a, 1) += 5; lookup(b, 1) += 7 (b's index 1 is past a's stride); return a[1] * 100 + b[1]
        Insn[] p = {stw(10, -8, 1), movr(2, 10), addi(2, -8), MAP, lookup(), jeqi(0, 0, 16), movr(6, 0),
                movr(2, 10), addi(2, -8), MAP2, lookup(), jeqi(0, 0, 9), ldxdw(1, 6, 0), addi(1, 5), stxdw(6, 1, 0),
                ldxdw(2, 0, 0), addi(2, 7), stxdw(0, 2, 0), new Insn(ALU64 | MUL | K, 1, 0, 0, 100), new Insn(ALU64 | ADD | X, 1, 2, 0, 0),
                movr(0, 1), exit()};
        // the jeqi offsets above skip to the final exit with r0 = NULL (0)
        Outcome[] o = agree(two, p);
        assertThat(o[0].r0()).isEqualTo(10 * 100 + 14);
        assertThat(both(o)).isZero();
    }
}
