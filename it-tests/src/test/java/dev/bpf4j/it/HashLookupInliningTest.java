package dev.bpf4j.it;

import dev.bpf4j.api.Engines;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapFlags;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.it.ArrayLookupInliningTest.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bpf_map_lookup_elem} on HASH and PERCPU_HASH maps, which both engines inline where r1 is a
 * constant handle and the key lies in the current frame (bpf-jit-x86 {@code InlineHashLookup}: the
 * key hashed, the bucket's chain walked without a lock; bpf-interp {@code MapHelperInlining}: the
 * map's own lookup without the helper's checks), against a reference run that always calls the
 * helper (ArrayLookupInliningTest's runner): the same r0, map contents and errors for present,
 * absent and deleted keys, every key size the inline compare handles differently, chains of several
 * elements, a closed map, per-CPU values, and lookups while another thread inserts and deletes. The
 * helper's Java body counts its calls, so the test sees which calls were inlined.
 */
class HashLookupInliningTest {
    /** The key's bytes are stored from r10 - KEY_AT (keys up to 64 bytes end at r10 - 8). */
    static final int KEY_AT = -72;

    @BeforeAll
    static void bothEngines() {
        Assumptions.assumeTrue(Engines.available().stream().anyMatch(e -> e.name().equals("jit")), "no JIT on this platform");
    }

    static byte[] key(int size, int seed) {
        byte[] k = new byte[size];
        for (int i = 0; i < size; i++) k[i] = (byte) (seed * 31 + i * 7 + (seed >> 3));
        return k;
    }

    static byte[] u64(long v) { return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array(); }

    /** v = lookup(map, key); if v == NULL return 1000; v->first += 1; return v->first. */
    static Insn[] counter(byte[] key) { return counter(key, KEY_AT); }

    /** The same with the key at r10 + {@code at} (its bytes stored where they fall inside the frame). */
    static Insn[] counter(byte[] key, int at) {
        List<Insn> l = new ArrayList<>();
        l.add(movr(6, 1));
        for (int i = 0; i < key.length; i++) if (at + i >= -512 && at + i < 0) l.add(new Insn(ST | MEM | B, 10, 0, at + i, key[i]));
        l.addAll(List.of(movr(2, 10), addi(2, at), MAP, lookup(),
                jeqi(0, 0, 5), ldxdw(1, 0, 0), addi(1, 1), stxdw(0, 1, 0), movr(0, 1), exit(), mov(0, 1000), exit()));
        return l.toArray(Insn[]::new);
    }

    static List<MapDefinition> hash(MapType type, int keySize, int maxEntries) {
        return List.of(new MapDefinition("h", type, keySize, 8, maxEntries, 0));
    }

    /** {@code n} keys of {@code size} bytes with values 10 * i. */
    static Consumer<BpfMap> filled(int size, int n) {
        return m -> {
            for (int i = 0; i < n; i++) m.update(key(size, i), u64(10L * i), MapFlags.BPF_ANY);
        };
    }

    @Test
    void presentKeysOfEverySizeAreInlined() {
        // 4: one 4-byte word; 6: two overlapping 4-byte words; 8; 13 and 20: overlapping 8-byte words; 64: the largest
        for (int size : new int[]{4, 6, 7, 8, 13, 16, 20, 64}) {
            Outcome[] o = agree(hash(MapType.HASH, size, 16), filled(size, 12), counter(key(size, 5)));
            assertThat(o[0].r0()).as("key size %d", size).isEqualTo(52); // 50, then two increments
            assertThat(o[2].helperCalls()).as("the reference calls the helper").isEqualTo(2);
            assertThat(both(o)).as("both engines inline, key size %d", size).isZero();
        }
    }

    @Test
    void keysTheJitsInlineCodeDoesNotHandleCallTheHelper() {
        for (int size : new int[]{1, 3, 65}) {
            Outcome[] o = agree(hash(MapType.HASH, size, 16), filled(size, 12), counter(key(size, 5)));
            assertThat(o[0].r0()).isEqualTo(52);
            assertThat(o[1].helperCalls()).as("JIT, key size %d", size).isEqualTo(2);
            assertThat(o[0].helperCalls()).as("the interpreter inlines every key size, key size %d", size).isZero();
        }
    }

    @Test
    void keysAtTheFramesEdges() {
        // r10 - 512 and r10 - 8: the lowest and highest 8-byte keys, inlined by both engines
        for (int at : new int[]{-512, -8}) {
            Outcome[] o = agree(hash(MapType.HASH, 8, 16), filled(8, 12), counter(key(8, 5), at));
            assertThat(o[0].r0()).as("key at r10%+d", at).isEqualTo(52);
            assertThat(both(o)).as("key at r10%+d", at).isZero();
        }
        // r10 - 4 crosses the frame's top, r10 - 516 its bottom: the helper is called and refuses the key
        for (int at : new int[]{-4, -516}) {
            Outcome[] o = agree(hash(MapType.HASH, 8, 16), filled(8, 12), counter(key(8, 5), at));
            assertThat(o[0].kind()).as("key at r10%+d", at).isEqualTo(ErrorKind.BAD_HELPER_ARGUMENT);
            assertThat(both(o)).as("key at r10%+d", at).isEqualTo(1);
        }
    }

    @Test
    void absentKeysLookUpNull() {
        // a key that differs from a present one only in its last byte, a first byte, and an empty map
        byte[] k = key(13, 5);
        byte[] lastByte = k.clone(), firstByte = k.clone();
        lastByte[12] ^= 1;
        firstByte[0] ^= (byte) 0x80;
        for (byte[] absent : new byte[][]{lastByte, firstByte, key(13, 99)}) {
            Outcome[] o = agree(hash(MapType.HASH, 13, 16), filled(13, 12), counter(absent));
            assertThat(o[0].r0()).isEqualTo(1000);
            assertThat(both(o)).isZero();
        }
        assertThat(both(agree(hash(MapType.HASH, 13, 16), m -> {}, counter(k)))).isZero();
    }

    @Test
    void everyElementOfAFullMapIsFoundThroughItsChain() {
        // 64 keys in 64 buckets: most buckets hold chains of 0, 2 or more elements
        for (int i = 0; i < 64; i += 7) {
            Outcome[] o = agree(hash(MapType.HASH, 8, 64), filled(8, 64), counter(key(8, i)));
            assertThat(o[0].r0()).isEqualTo(10L * i + 2);
            assertThat(both(o)).isZero();
        }
    }

    @Test
    void deletedAndReinsertedKeys() {
        Consumer<BpfMap> churn = m -> {
            filled(8, 64).accept(m);
            for (int i = 0; i < 64; i += 2) m.delete(key(8, i)); // frees slots, leaves their links
            for (int i = 0; i < 32; i += 4) m.update(key(8, 100 + i), u64(7), MapFlags.BPF_ANY); // reuses them
        };
        assertThat(agree(hash(MapType.HASH, 8, 64), churn, counter(key(8, 10)))[0].r0()).isEqualTo(1000);
        assertThat(agree(hash(MapType.HASH, 8, 64), churn, counter(key(8, 11)))[0].r0()).isEqualTo(112);
        Outcome[] o = agree(hash(MapType.HASH, 8, 64), churn, counter(key(8, 104)));
        assertThat(o[0].r0()).isEqualTo(9);
        assertThat(both(o)).isZero();
    }

    @Test
    void lruLookupsMarkTheElementsTheyFind() {
        // A full LRU map of 8; the program looks up key 2, then Java inserts 7 new keys: the CLOCK sweep
        // evicts elements whose reference byte is clear, so key 2 (marked by the lookup) survives on both
        // engines and the others (cleared by the first sweep, not looked up again) go.
        for (MapType type : List.of(MapType.LRU_HASH, MapType.LRU_PERCPU_HASH)) {
            int cpus = type == MapType.LRU_PERCPU_HASH ? dev.bpf4j.maps.Cpus.possible() : 1;
            Consumer<BpfMap> full = m -> {
                for (int i = 0; i < 8; i++) m.update(key(8, i), new byte[8 * cpus], MapFlags.BPF_ANY);
            };
            Consumer<BpfMap> sweepFirst = full.andThen(m -> m.update(key(8, 50), new byte[8 * cpus], MapFlags.BPF_ANY));
            Insn[] lookupThenReturn = counter(key(8, 2));
            for (Engine engine : List.of(Engines.byName("interp"), Engines.byName("jit"))) {
                try (MapTable maps = MapTable.create(hash(type, 8, 8))) {
                    BpfMap m = maps.map(0);
                    sweepFirst.accept(m); // one eviction: every reference byte is now clear
                    AtomicInteger calls = new AtomicInteger();
                    RunContext.Builder c = RunContext.builder();
                    m.regions().forEach(c::region);
                    try (Executable e = engine.load(program(maps, lookupThenReturn), LoadOptions.defaults().withHelpers(countingLookups(maps, calls, true)))) {
                        assertThat(e.run(c.build())).as("%s %s", engine.name(), type).isNotEqualTo(1000);
                    }
                    for (int i = 100; i < 107; i++) m.update(key(8, i), new byte[8 * cpus], MapFlags.BPF_ANY);
                    assertThat(m.lookup(key(8, 2))).as("%s %s: the element the program looked up", engine.name(), type).isPresent();
                    assertThat(calls.get()).as("%s %s: inlined", engine.name(), type).isZero();
                }
            }
        }
    }

    @Test
    void aClosedMapIsRefusedByTheHelper() {
        Insn[] p = counter(key(8, 1));
        Outcome interp = run(Engines.byName("interp"), hash(MapType.HASH, 8, 4), filled(8, 2), true, p);
        Outcome jit = run(Engines.byName("jit"), hash(MapType.HASH, 8, 4), filled(8, 2), true, p);
        assertThat(interp.kind()).isEqualTo(ErrorKind.BAD_HELPER_ARGUMENT);
        assertThat(new Outcome(jit.r0(), jit.kind(), jit.pc(), jit.map(), 0)).isEqualTo(new Outcome(null, interp.kind(), interp.pc(), "closed", 0));
        assertThat(interp.helperCalls()).isEqualTo(1);
        assertThat(jit.helperCalls()).isEqualTo(1);
    }

    @Test
    void perCpuHashesAreInlinedForTheCurrentCpu() {
        // which CPU's value a run increments depends on where the thread runs: compare the sums over all CPUs
        for (Engine engine : List.of(Engines.byName("interp"), Engines.byName("jit"))) {
            try (MapTable maps = MapTable.create(hash(MapType.PERCPU_HASH, 8, 8))) {
                BpfMap m = maps.map(0);
                int cpus = dev.bpf4j.maps.Cpus.possible();
                m.update(key(8, 3), new byte[8 * cpus], MapFlags.BPF_ANY);
                AtomicInteger calls = new AtomicInteger();
                RunContext.Builder c = RunContext.builder();
                m.regions().forEach(c::region);
                RunContext context = c.build();
                int nulls = 0;
                try (Executable e = engine.load(program(maps, counter(key(8, 3))), LoadOptions.defaults().withHelpers(countingLookups(maps, calls, true)))) {
                    for (int i = 0; i < 20; i++) if (e.run(context) == 1000) nulls++;
                    for (int i = 0; i < 5; i++) {
                        try (Executable absent = engine.load(program(maps, counter(key(8, 4))), LoadOptions.defaults().withHelpers(countingLookups(maps, calls, true)))) {
                            if (absent.run(context) == 1000) nulls++;
                        }
                    }
                }
                byte[] all = m.lookup(key(8, 3)).orElseThrow();
                long sum = 0;
                for (int cpu = 0; cpu < cpus; cpu++) sum += ByteBuffer.wrap(all, cpu * 8, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
                assertThat(sum).as(engine.name()).isEqualTo(20);
                assertThat(nulls).as(engine.name()).isEqualTo(5);
                assertThat(calls.get()).as("%s: inlined", engine.name()).isZero();
            }
        }
    }

    @Test
    void lookupsWhileAnotherThreadInsertsAndDeletes() throws Exception {
        // Key 0 stays in the map; a writer deletes and re-inserts the other keys, so slots are reused and move
        // between buckets while programs walk the chains. Every run must find key 0 (its count goes up by one).
        for (Engine engine : List.of(Engines.byName("interp"), Engines.byName("jit"))) {
            try (MapTable maps = MapTable.create(hash(MapType.HASH, 8, 16))) {
                BpfMap m = maps.map(0);
                filled(8, 16).accept(m);
                AtomicBoolean stop = new AtomicBoolean();
                Thread writer = new Thread(() -> {
                    for (int round = 0; !stop.get(); round++) {
                        for (int i = 1; i < 16; i++) {
                            m.delete(key(8, i + 16 * (round & 1)));
                            m.update(key(8, i + 16 * ((round + 1) & 1)), u64(i), MapFlags.BPF_ANY);
                        }
                    }
                });
                AtomicInteger calls = new AtomicInteger();
                RunContext.Builder c = RunContext.builder();
                m.regions().forEach(c::region);
                RunContext context = c.build();
                int runs = 200_000;
                long last = 0;
                try (Executable e = engine.load(program(maps, counter(key(8, 0))), LoadOptions.defaults().withHelpers(countingLookups(maps, calls, true)))) {
                    writer.start();
                    for (int i = 0; i < runs; i++) last = e.run(context);
                } finally {
                    stop.set(true);
                    writer.join();
                }
                assertThat(last).as(engine.name()).isEqualTo(runs);
                assertThat(m.lookup(key(8, 0)).map(v -> ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN).getLong()))
                        .as(engine.name()).contains((long) runs);
            }
        }
    }
}
