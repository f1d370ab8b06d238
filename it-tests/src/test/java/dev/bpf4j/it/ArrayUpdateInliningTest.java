package dev.bpf4j.it;

import dev.bpf4j.api.Engines;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.maps.Cpus;
import dev.bpf4j.maps.Errno;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapFlags;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
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
import static dev.bpf4j.it.ArrayLookupInliningTest.MAP;
import static dev.bpf4j.it.ArrayLookupInliningTest.Outcome;
import static dev.bpf4j.it.ArrayLookupInliningTest.addi;
import static dev.bpf4j.it.ArrayLookupInliningTest.array;
import static dev.bpf4j.it.ArrayLookupInliningTest.both;
import static dev.bpf4j.it.ArrayLookupInliningTest.exit;
import static dev.bpf4j.it.ArrayLookupInliningTest.mov;
import static dev.bpf4j.it.ArrayLookupInliningTest.movr;
import static dev.bpf4j.it.ArrayLookupInliningTest.stw;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bpf_map_update_elem} on an ARRAY map, which both engines inline where r1 is a constant
 * handle, key and value lie in the current frame and the flags are BPF_ANY or BPF_EXIST (bpf-jit-x86
 * {@code InlineArrayUpdate}, bpf-interp {@code MapHelperInlining}), against a reference run that
 * always calls the helper (ArrayLookupInliningTest's runner): the same r0, map contents and errors
 * (kind, pc) for value sizes with every tail width, indexes past the end, every flag, keys and values
 * at the frame's edges and outside it, a closed map, per-CPU arrays (this CPU's value), and maps whose
 * updates are not inlined (a bpf_spin_lock in the value, read-only for programs; values past 256
 * bytes the JIT leaves to the helper and the interpreter copies). The helper's Java body counts its
 * calls, so the test also sees which calls each engine inlined.
 */
class ArrayUpdateInliningTest {
    @BeforeAll
    static void bothEngines() {
        Assumptions.assumeTrue(Engines.available().stream().anyMatch(e -> e.name().equals("jit")), "no JIT on this platform");
    }

    static Insn update() { return new Insn(JMP | CALL, 0, CALL_HELPER, 0, HelperIds.MAP_UPDATE_ELEM); }

    /**
     * Fills r10-72 .. r10-9 with the bytes 1, 2, 3, ... (so every byte of a value is told apart),
     * stores {@code key} at r10-8, and returns update(map, r10 + keyAt, r10 + valueAt, flags).
     */
    static Insn[] updater(int key, int keyAt, int valueAt, int flags) {
        List<Insn> p = new ArrayList<>();
        for (int k = 0; k < 16; k++) {
            int b = 4 * k + 1;
            p.add(stw(10, -72 + 4 * k, b | (b + 1) << 8 | (b + 2) << 16 | (b + 3) << 24));
        }
        p.add(stw(10, -8, key));
        p.add(movr(2, 10));
        p.add(addi(2, keyAt));
        p.add(movr(3, 10));
        p.add(addi(3, valueAt));
        p.add(mov(4, flags));
        p.add(MAP);
        p.add(update());
        p.add(exit());
        return p.toArray(new Insn[0]);
    }

    /** Element {@code key} of a map dump holding the bytes 1 .. {@code size} ({@link #updater}'s value at r10-72). */
    static String element(int key, int size) {
        StringBuilder v = new StringBuilder();
        for (int i = 1; i <= size; i++) v.append(i > 1 ? ", " : "").append(String.format("\"0x%02x\"", i));
        return String.format("{\"key\": [\"0x%02x\", \"0x00\", \"0x00\", \"0x00\"], \"value\": [%s]}", key, v);
    }

    /** pc of the call in {@link #updater}. */
    static final int CALL_PC = 16 + 6 + 2;

    static Outcome[] agree(List<MapDefinition> defs, Insn... insns) { return agree(defs, m -> {}, insns); }

    static Outcome[] agree(List<MapDefinition> defs, Consumer<BpfMap> setup, Insn... insns) {
        return ArrayLookupInliningTest.agree(HelperIds.MAP_UPDATE_ELEM, defs, setup, insns);
    }

    @Test
    void valuesOfEveryTailWidthAreCopiedInline() {
        for (int valueSize : new int[]{8, 12, 1, 2, 3, 7, 15, 24, 64}) {
            Outcome[] o = agree(array(valueSize, 4), updater(2, -8, -72, (int) MapFlags.BPF_ANY));
            assertThat(o[0].r0()).isZero();
            assertThat(o[0].map()).as("element 2 holds the value's bytes").contains(element(2, valueSize));
            assertThat(o[2].helperCalls()).as("the reference calls the helper").isEqualTo(2);
            assertThat(both(o)).as("both engines inline, value size %d", valueSize).isZero();
        }
        Outcome[] exist = agree(array(12, 4), updater(3, -8, -60, (int) MapFlags.BPF_EXIST));
        assertThat(exist[0].r0()).isZero();
        assertThat(both(exist)).isZero();
    }

    @Test
    void anIndexPastTheEndIsE2bigInline() {
        for (int key : new int[]{4, 5, -1, Integer.MIN_VALUE}) {
            Outcome[] o = agree(array(8, 4), updater(key, -8, -72, 0));
            assertThat(o[0].r0()).isEqualTo(-Errno.E2BIG);
            assertThat(both(o)).isZero();
        }
    }

    @Test
    void otherFlagsCallTheHelper() {
        // BPF_NOEXIST: every element exists (-EEXIST); 3 and 8: unknown (-EINVAL); BPF_F_LOCK without a lock (-EINVAL)
        long[][] cases = {{MapFlags.BPF_NOEXIST, -Errno.EEXIST}, {3, -Errno.EINVAL}, {8, -Errno.EINVAL}, {MapFlags.BPF_F_LOCK, -Errno.EINVAL}, {-1, -Errno.EINVAL}};
        for (long[] c : cases) {
            Outcome[] o = agree(array(8, 4), updater(1, -8, -72, (int) c[0]));
            assertThat(o[0].r0()).as("flags %d", c[0]).isEqualTo(c[1]);
            assertThat(both(o)).as("flags %d", c[0]).isEqualTo(2);
        }
        // past the end with BPF_NOEXIST: the helper answers -E2BIG first, as arraymap.c
        assertThat(agree(array(8, 4), updater(9, -8, -72, (int) MapFlags.BPF_NOEXIST))[0].r0()).isEqualTo(-Errno.E2BIG);
    }

    @Test
    void keysAndValuesAtTheFramesEdges() {
        // the value at r10 - 512 and at r10 - 8 (its last byte the frame's last; there it is the key's 8 bytes): inline
        assertThat(agree(array(8, 4), updater(2, -8, -512, 0))[1].helperCalls()).isZero();
        Outcome[] top = agree(array(8, 4), updater(2, -8, -8, 0));
        assertThat(top[0].r0()).isZero();
        assertThat(both(top)).isZero();
        // a value crossing the frame's top or bottom: the helper is called and refuses it
        for (int at : new int[]{-4, -513, 0}) {
            Outcome[] o = agree(array(8, 4), updater(2, -16, at, 0));
            assertThat(o[0].kind()).as("value at r10%+d", at).isEqualTo(ErrorKind.BAD_HELPER_ARGUMENT);
            assertThat(o[0].pc()).isEqualTo(CALL_PC);
            assertThat(both(o)).isEqualTo(1);
        }
        // the key crossing the top: refused by the helper as well
        Outcome[] key = agree(array(8, 4), updater(2, -2, -72, 0));
        assertThat(key[0].kind()).isEqualTo(ErrorKind.BAD_HELPER_ARGUMENT);
        assertThat(both(key)).isEqualTo(1);
    }

    @Test
    void aValueOutsideTheFrameCallsTheHelper() {
        // r3 = ctx (readable, 16 bytes: key 2 at ctx + 0): the helper copies it
        Insn[] fromCtx = {movr(3, 1), stw(10, -8, 1), movr(2, 10), addi(2, -8), mov(4, 0), MAP, update(), exit()};
        Outcome[] o = agree(array(16, 4), fromCtx);
        assertThat(o[0].r0()).isZero();
        assertThat(both(o)).isEqualTo(2);
    }

    @Test
    void aClosedMapIsRefusedByTheHelper() {
        Outcome interp = ArrayLookupInliningTest.run(Engines.byName("interp"), HelperIds.MAP_UPDATE_ELEM, array(8, 4), m -> {}, true, true,
                updater(2, -8, -72, 0));
        Outcome jit = ArrayLookupInliningTest.run(Engines.byName("jit"), HelperIds.MAP_UPDATE_ELEM, array(8, 4), m -> {}, true, true,
                updater(2, -8, -72, 0));
        assertThat(interp.kind()).isEqualTo(ErrorKind.BAD_HELPER_ARGUMENT);
        assertThat(new Outcome(jit.r0(), jit.kind(), jit.pc(), jit.map(), 0)).isEqualTo(new Outcome(null, interp.kind(), CALL_PC, "closed", 0));
        assertThat(interp.helperCalls()).isEqualTo(1);
        assertThat(jit.helperCalls()).isEqualTo(1);
    }

    @Test
    void mapsWhoseUpdatesAreNotInlinedCallTheHelper() {
        List<List<MapDefinition>> called = List.of(
                List.of(new MapDefinition("a", MapType.ARRAY, 4, 16, 4, 0, 8)),                       // a bpf_spin_lock at offset 8
                List.of(new MapDefinition("a", MapType.ARRAY, 4, 8, 4, (int) MapFlags.BPF_F_RDONLY_PROG)));
        for (List<MapDefinition> defs : called) {
            Outcome[] o = agree(defs, updater(1, -8, -PAST_INLINE_SIZE - 8, 0));
            assertThat(both(o)).as(defs.get(0).toString()).isPositive(); // both engines call the helper
        }
        // a value past the JIT's copy limit: the JIT calls the helper, the interpreter copies it
        Outcome[] large = agree(array(PAST_INLINE_SIZE, 2), updater(1, -8, -PAST_INLINE_SIZE - 8, 0));
        assertThat(large[1].helperCalls()).isEqualTo(2);
        assertThat(large[0].helperCalls()).isZero();
    }

    /**
     * Runs {@link #updater} 40 times on a per-CPU array of 12-byte values, element {@code key} zeroed
     * on every CPU before each run. Answers the helper calls made and the runs that stayed on one CPU
     * (the CPU asked before and after the run agree) and wrote the bytes 1..12 into that CPU's value
     * and nothing into the others'; the others are not checked (the thread may have moved).
     */
    static int[] perCpuUpdates(Engine engine, int key, boolean inlining) {
        try (MapTable maps = MapTable.create(List.of(new MapDefinition("a", MapType.PERCPU_ARRAY, 4, 12, 4, 0)))) {
            BpfMap map = maps.map(0);
            AtomicInteger calls = new AtomicInteger();
            RunContext.Builder c = RunContext.builder();
            map.regions().forEach(c::region);
            RunContext context = c.build();
            byte[] element = {(byte) key, 0, 0, 0}, zeros = new byte[map.javaValueSize()];
            int confirmed = 0;
            try (Executable e = engine.load(ArrayLookupInliningTest.program(maps, updater(key, -8, -72, 0)),
                    LoadOptions.defaults().withHelpers(ArrayLookupInliningTest.counting(maps, HelperIds.MAP_UPDATE_ELEM, calls, inlining)))) {
                for (int i = 0; i < 40; i++) {
                    if (key < 4) map.update(element, zeros, MapFlags.BPF_ANY);
                    int before = Cpus.current();
                    long r0 = e.run(context);
                    int after = Cpus.current();
                    assertThat(r0).isEqualTo(key < 4 ? 0 : -Errno.E2BIG);
                    if (key >= 4 || before != after) continue;
                    byte[] all = map.lookup(element).orElseThrow();
                    for (int cpu = 0; cpu < all.length / 16; cpu++) {
                        byte[] v = Arrays.copyOfRange(all, cpu * 16, cpu * 16 + 12);
                        byte[] expected = new byte[12];
                        if (cpu == before) for (int b = 0; b < 12; b++) expected[b] = (byte) (b + 1);
                        assertThat(v).as("run %d on cpu %d: cpu %d's value", i, before, cpu).containsExactly(expected);
                    }
                    confirmed++;
                }
            }
            for (int k = 0; k < 4 && key >= 4; k++) {
                assertThat(map.lookup(new byte[]{(byte) k, 0, 0, 0}).orElseThrow()).as("element %d", k).containsOnly(0);
            }
            return new int[]{calls.get(), confirmed};
        }
    }

    @Test
    void perCpuArraysAreUpdatedForTheCurrentCpu() {
        int[] helper = perCpuUpdates(Engines.byName("interp"), 2, false);
        assertThat(helper[0]).as("the helper: every run calls it").isEqualTo(40);
        assertThat(helper[1]).as("runs that stayed on one CPU").isPositive();
        for (String engine : List.of("interp", "jit", "jvm")) {
            int[] inlined = perCpuUpdates(Engines.byName(engine), 2, true);
            assertThat(inlined[0]).as("%s inlined: no helper call", engine).isZero();
            assertThat(inlined[1]).as("%s: runs that stayed on one CPU", engine).isPositive();
            assertThat(perCpuUpdates(Engines.byName(engine), 4, true)).as("%s past the end: -E2BIG, nothing written", engine).containsExactly(0, 0);
        }
    }

    /** Past the largest value the JIT copies inline (256 bytes, InlineArrayUpdate.MAX_VALUE_SIZE). */
    static final int PAST_INLINE_SIZE = 264;
}
