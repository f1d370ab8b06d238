package dev.bpf4j.jit;

import dev.bpf4j.api.MapDump;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static dev.bpf4j.jit.HashOps.map;
import static dev.bpf4j.jit.HashOps.map2;
import static dev.bpf4j.jit.NativeSpinLockTest.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keys as the bundled profile.o builds them ({tgid, pid, stack id, comm[16]}: 28 bytes, every byte
 * used, bytes above 0x7f included) through native hash updates and inlined lookups on the JIT, and
 * through the Java helpers on the interpreter: the same answers and the same maps.
 */
class NativeHashWideKeyTest {
    static final int KEY = 28, CTX = 64, LOOKUP = 2;

    /** ctx = {u64 op, u8 key[32], u64 flags, u64 value}; op 2: lookup (r0 = the value or -1), else update. */
    static Program program(MapTable maps) {
        long h = maps.handle(0);
        return new Program("wide_keys", List.of(
                movr(6, 1),
                ldxdw(2, 6, 8), stxdw(10, 2, -32), ldxdw(2, 6, 16), stxdw(10, 2, -24),
                ldxdw(2, 6, 24), stxdw(10, 2, -16), ldxdw(2, 6, 32), stxdw(10, 2, -8),
                ldxdw(2, 6, 48), stxdw(10, 2, -40),
                ldxdw(7, 6, 0),
                movr(2, 10), addi(2, -32),
                jeqi(7, LOOKUP, 7),
                movr(3, 10), addi(3, -40), ldxdw(4, 6, 40), map(h), map2(h), call(HelperIds.MAP_UPDATE_ELEM), exit(),
                map(h), map2(h), call(HelperIds.MAP_LOOKUP_ELEM), jeqi(0, 0, 3), ldxdw(1, 0, 0), movr(0, 1), exit(),
                mov(0, -1), exit()));
    }

    private static final class Side implements AutoCloseable {
        final MapTable maps;
        final Executable x;
        final long ctx = NativeMemory.allocate(CTX);
        final RunContext context;

        Side(Engine engine, MapDefinition def) {
            maps = MapTable.create(List.of(def));
            x = engine.load(program(maps), LoadOptions.defaults().withHelpers(BpfHelpers.registry(maps)));
            RunContext.Builder c = RunContext.builder().arg(1, ctx).region(new MemoryRegion("ctx", ctx, CTX, false));
            maps.regions().forEach(c::region);
            context = c.build();
        }

        long run(int op, byte[] key, long flags, long value) {
            NativeMemory.putLong(ctx, op);
            for (int i = 0; i < 32; i++) NativeMemory.putByte(ctx + 8 + i, i < key.length ? key[i] : 0);
            NativeMemory.putLong(ctx + 40, flags);
            NativeMemory.putLong(ctx + 48, value);
            return x.run(context);
        }

        @Override public void close() {
            x.close();
            maps.close();
            NativeMemory.free(ctx);
        }
    }

    @Test
    void wideKeysGiveTheSameAnswersAndMapsOnBothEngines() {
        for (int maxEntries : new int[] {40960, 48}) {
            MapDefinition def = new MapDefinition("counts", MapType.HASH, KEY, 8, maxEntries, 0);
            Random rnd = new Random(20261207L + maxEntries);
            List<byte[]> seen = new ArrayList<>();
            try (Side interp = new Side(Both.INTERP, def); Side jit = new Side(Jit.ENGINE, def)) {
                for (int i = 0; i < 6000; i++) {
                    byte[] key;
                    if (!seen.isEmpty() && rnd.nextInt(3) == 0) key = seen.get(rnd.nextInt(seen.size()));
                    else {
                        key = new byte[KEY];
                        rnd.nextBytes(key);
                        if (rnd.nextBoolean()) for (int b = 12 + rnd.nextInt(16); b < KEY; b++) key[b] = 0;   // a short comm
                        seen.add(key);
                    }
                    int op = rnd.nextInt(3) == 0 ? LOOKUP : 0;
                    long flags = rnd.nextInt(3);
                    long value = rnd.nextLong();
                    String what = "max_entries " + maxEntries + ", step " + i;
                    assertThat(jit.run(op, key, flags, value)).as(what).isEqualTo(interp.run(op, key, flags, value));
                }
                assertThat(MapDump.json(jit.maps.map(0))).isEqualTo(MapDump.json(interp.maps.map(0)));
            }
        }
    }
}
