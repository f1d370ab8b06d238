package dev.bpf4j.jit;

import dev.bpf4j.api.MapDump;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.Helper;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.HelperSpec;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.jit.NativeSpinLockTest.*;

/**
 * One program that runs a hash map operation described by its ctx, as a test driver: ctx = {u64 op,
 * u64 key, u64 flags, u64 value[3]}; op 0 = bpf_map_update_elem(map, &key, &value, flags), 1 =
 * bpf_map_delete_elem(map, &key), 2 = bpf_map_lookup_elem (r0 = the value's word at {@code
 * wordAt}, or -1 when absent). Key and value are copied into the frame first, so the JIT may run
 * the helpers natively. One {@code HashOps} is one engine's program over its own maps, with the
 * update and delete bodies counting their calls.
 */
final class HashOps implements AutoCloseable {
    static final int UPDATE = 0, DELETE = 1, LOOKUP = 2, CTX = 48;

    static Program program(MapTable maps, int wordAt) {
        long h = maps.handle(0);
        return new Program("hash_ops", List.of(
                movr(6, 1),
                ldxdw(2, 6, 8), stxdw(10, 2, -16),
                ldxdw(2, 6, 24), stxdw(10, 2, -48),
                ldxdw(2, 6, 32), stxdw(10, 2, -40),
                ldxdw(2, 6, 40), stxdw(10, 2, -32),
                ldxdw(7, 6, 0),
                movr(2, 10), addi(2, -16),
                jeqi(7, DELETE, 8), jeqi(7, LOOKUP, 11),
                movr(3, 10), addi(3, -48), ldxdw(4, 6, 16), map(h), map2(h), call(HelperIds.MAP_UPDATE_ELEM), exit(),
                map(h), map2(h), call(HelperIds.MAP_DELETE_ELEM), exit(),
                map(h), map2(h), call(HelperIds.MAP_LOOKUP_ELEM), jeqi(0, 0, 3), ldxdw(1, 0, wordAt), movr(0, 1), exit(),
                mov(0, -1), exit()));
    }

    /** r1 = handle {@code h} (an lddw, loaded again at each call so that r1 is a constant there). */
    static Insn map(long h) { return new Insn(LDDW, 1, PSEUDO_IMM64, 0, (int) h); }

    static Insn map2(long h) { return new Insn(0, 0, 0, 0, (int) (h >>> 32)); }

    final MapTable maps;
    final Executable x;
    final AtomicInteger helperCalls = new AtomicInteger();

    /** Loads the driver on {@code engine}; {@code javaHelpers}: with {@code -Dbpf4j.jit.nativeHelpers=false} set while loading. */
    HashOps(Engine engine, MapTable maps, int wordAt, boolean javaHelpers) {
        this.maps = maps;
        HelperRegistry all = BpfHelpers.registry(maps);
        HelperRegistry.Builder b = all.toBuilder();
        for (int id : new int[]{HelperIds.MAP_UPDATE_ELEM, HelperIds.MAP_DELETE_ELEM}) {
            HelperSpec real = all.lookup(id).orElseThrow();
            Helper counted = (call, r1, r2, r3, r4, r5) -> {
                helperCalls.incrementAndGet();
                return real.body().call(call, r1, r2, r3, r4, r5);
            };
            b.addForward(id, real.name(), counted, real.lookupInlining());
        }
        LoadOptions o = LoadOptions.defaults().withHelpers(b.build());
        if (javaHelpers) System.setProperty("bpf4j.jit.nativeHelpers", "false");
        try {
            x = engine.load(program(maps, wordAt), o);
        } finally {
            if (javaHelpers) System.clearProperty("bpf4j.jit.nativeHelpers");
        }
    }

    /** A thread's ctx block and run context (runs on one ctx must not overlap). */
    final class Driver implements AutoCloseable {
        final long ctx = NativeMemory.allocate(CTX);
        final RunContext context;

        Driver() {
            RunContext.Builder c = RunContext.builder().arg(1, ctx).region(new MemoryRegion("ctx", ctx, CTX, false));
            maps.regions().forEach(c::region);
            context = c.build();
        }

        /** r0 of one operation, or the error as "KIND@pc". */
        String run(int op, long key, long flags, long v0, long v1, long v2) {
            NativeMemory.putLong(ctx, op);
            NativeMemory.putLong(ctx + 8, key);
            NativeMemory.putLong(ctx + 16, flags);
            NativeMemory.putLong(ctx + 24, v0);
            NativeMemory.putLong(ctx + 32, v1);
            NativeMemory.putLong(ctx + 40, v2);
            try {
                return Long.toString(x.run(context));
            } catch (BpfRuntimeException e) {
                return e.kind() + "@" + e.pc();
            }
        }

        @Override public void close() { NativeMemory.free(ctx); }
    }

    String dump() { return MapDump.json(maps.map(0)); }

    @Override public void close() {
        x.close();
        maps.close();
    }

    /**
     * Every answer a random sequence of updates (op 0) and deletes (op 1) must have drawn from the
     * helpers ("op:r0" keys), -E2BIG too where the map is not an LRU one.
     */
    static void assertEveryAnswerSeen(java.util.Map<String, Integer> answers, String what, boolean e2big) {
        for (String a : new String[]{"0:0", "0:" + -dev.bpf4j.maps.Errno.EEXIST, "0:" + -dev.bpf4j.maps.Errno.ENOENT,
                "0:" + -dev.bpf4j.maps.Errno.EINVAL, "1:0", "1:" + -dev.bpf4j.maps.Errno.ENOENT}) {
            org.assertj.core.api.Assertions.assertThat(answers).as(what + " answered " + a).containsKey(a);
        }
        if (e2big) org.assertj.core.api.Assertions.assertThat(answers).as(what).containsKey("0:" + -dev.bpf4j.maps.Errno.E2BIG);
    }
}
