package dev.bpf4j.fuzz;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.maps.MapType;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Grammar-aware programs (see {@link ProgramWriter} for the grammar): {@link GrammarOptions#objectPercent()}
 * of them tc programs of a small object ({@link ObjectShape}: maps of every kind a program looks up,
 * a ring buffer, a program array) run on a packet, the others programs in the conformance convention
 * over a random memory block (sometimes none). Deterministic per seed.
 */
public final class GrammarGenerator implements ProgramGenerator {
    static final int[] MEM_LENGTHS = {1, 2, 4, 7, 8, 15, 16, 24, 32, 64};
    /** Packets: at least an Ethernet header (Linux's test run refuses less). */
    static final int[] PACKET_LENGTHS = {14, 15, 16, 20, 34, 60, 64, 100};
    static final MapType[] VALUE_MAPS = {MapType.ARRAY, MapType.HASH, MapType.PERCPU_ARRAY, MapType.PERCPU_HASH,
            MapType.LRU_HASH, MapType.LRU_PERCPU_HASH};
    static final int[] VALUE_SIZES = {8, 16, 32};

    private final GrammarOptions options;

    public GrammarGenerator(GrammarOptions options) { this.options = options; }

    public GrammarGenerator() { this(GrammarOptions.defaults()); }

    public GrammarOptions options() { return options; }

    @Override public String name() { return options.frameEscapes() ? "grammar+frames" : "grammar"; }

    @Override public FuzzCase generate(long seed) {
        Random rnd = new Random(seed);
        if (rnd.nextInt(100) < options.objectPercent()) return object(rnd, seed);
        byte[] mem = null;
        if (rnd.nextInt(6) != 0) {
            mem = new byte[rnd.nextBoolean() ? MEM_LENGTHS[rnd.nextInt(MEM_LENGTHS.length)] : 1 + rnd.nextInt(64)];
            rnd.nextBytes(mem);
        }
        List<Insn> insns = new ProgramWriter(rnd, options, mem == null ? 0 : mem.length).write();
        return new FuzzCase(name() + " seed " + seed, insns, mem);
    }

    private FuzzCase object(Random rnd, long seed) {
        byte[] packet = new byte[PACKET_LENGTHS[rnd.nextInt(PACKET_LENGTHS.length)]];
        rnd.nextBytes(packet);
        ObjectShape shape = shape(rnd);
        boolean ldAbs = rnd.nextInt(4) == 0;
        List<Insn> insns = new ProgramWriter(rnd, options, packet.length, shape, ldAbs).write();
        return new FuzzCase(name() + " seed " + seed, insns, packet, shape);
    }

    static ObjectShape shape(Random rnd) {
        List<MapDef> maps = new ArrayList<>();
        for (int n = 1 + rnd.nextInt(3); n > 0; n--) {
            MapType t = VALUE_MAPS[rnd.nextInt(VALUE_MAPS.length)];
            int value = VALUE_SIZES[rnd.nextInt(VALUE_SIZES.length)];
            boolean lru = t == MapType.LRU_HASH || t == MapType.LRU_PERCPU_HASH;
            int key = t == MapType.ARRAY || t == MapType.PERCPU_ARRAY || rnd.nextBoolean() ? 4 : 8;
            // LRU maps evict early in Linux (per-CPU free lists): big enough that no key of ours is ever evicted
            int entries = lru ? 1024 : new int[] {1, 2, 4, 8}[rnd.nextInt(4)];
            maps.add(new MapDef(t, key, value, entries));
        }
        if (rnd.nextBoolean()) maps.add(new MapDef(MapType.RINGBUF, 0, 0, 4096));
        if (rnd.nextBoolean()) maps.add(new MapDef(MapType.PROG_ARRAY, 4, 4, 3));
        return new ObjectShape(maps, rnd.nextInt(1000));
    }
}
