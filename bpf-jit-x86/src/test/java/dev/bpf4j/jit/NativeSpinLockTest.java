package dev.bpf4j.jit;

import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapFlags;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.maps.SpinLock;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.Helper;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.HelperSpec;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.engine.Engine;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * bpf_spin_lock / bpf_spin_unlock as the JIT's native code (InlineSpinLock): the same exclusion as the
 * Java helper, on the same lock word, against JIT runs on other threads and Java's BPF_F_LOCK lookups;
 * the same refusals (kind and pc) as the interpreter for addresses that are not a lock; a lock left
 * held ends the run with HELPER_FAILED after the timeout instead of hanging it. The helper bodies count
 * their calls, so the test sees that the JIT took the native path.
 */
class NativeSpinLockTest {
    /** struct { bpf_spin_lock lock; u32 pad; u64 a; u64 b; }: programs keep a == b under the lock. */
    static List<MapDefinition> defs() { return List.of(new MapDefinition("v", MapType.ARRAY, 4, 24, 2, 0).withSpinLock(0)); }

    static Insn mov(int dst, int imm) { return new Insn(ALU64 | MOV | K, dst, 0, 0, imm); }
    static Insn movr(int dst, int src) { return new Insn(ALU64 | MOV | X, dst, src, 0, 0); }
    static Insn addi(int dst, int imm) { return new Insn(ALU64 | ADD | K, dst, 0, 0, imm); }
    static Insn stw(int dst, int off, int imm) { return new Insn(ST | MEM | W, dst, 0, off, imm); }
    static Insn ldxdw(int dst, int src, int off) { return new Insn(LDX | MEM | DW, dst, src, off, 0); }
    static Insn stxdw(int dst, int src, int off) { return new Insn(STX | MEM | DW, dst, src, off, 0); }
    static Insn jeqi(int dst, int imm, int off) { return new Insn(JMP | JEQ | K, dst, 0, off, imm); }
    static Insn call(int id) { return new Insn(JMP | CALL, 0, CALL_HELPER, 0, id); }
    static Insn exit() { return new Insn(JMP | EXIT, 0, 0, 0, 0); }

    /**
     * v = lookup(map, &0); if (!v) return 1; lock(v + lockAt); v->a++; v->b++; unlock(v + unlockAt); return 0.
     * The lock call is at pc 9, the unlock at pc 17.
     */
    static Program counter(MapTable maps, int lockAt, int unlockAt) {
        long h = maps.handle(0);
        return new Program("spin", List.of(
                stw(10, -4, 0), movr(2, 10), addi(2, -4),
                new Insn(LDDW, 1, PSEUDO_IMM64, 0, (int) h), new Insn(0, 0, 0, 0, (int) (h >>> 32)),
                call(HelperIds.MAP_LOOKUP_ELEM), jeqi(0, 0, 14), movr(6, 0),
                movr(1, 6), addi(1, lockAt), call(HelperIds.SPIN_LOCK) /* pc 10 */,
                ldxdw(1, 6, 8), addi(1, 1), stxdw(6, 1, 8),
                ldxdw(1, 6, 16), addi(1, 1), stxdw(6, 1, 16),
                movr(1, 6), addi(1, unlockAt), call(HelperIds.SPIN_UNLOCK) /* pc 19 */,
                mov(0, 0), exit(), mov(0, 1), exit()));
    }

    static final int LOCK_PC = 10, UNLOCK_PC = 19;

    /** The standard helpers, the lock and unlock bodies counting their calls (their native forms kept). */
    static HelperRegistry counting(MapTable maps, AtomicInteger calls) {
        HelperRegistry all = BpfHelpers.registry(maps);
        HelperRegistry.Builder b = all.toBuilder();
        for (int id : new int[]{HelperIds.SPIN_LOCK, HelperIds.SPIN_UNLOCK}) {
            HelperSpec real = all.lookup(id).orElseThrow();
            Helper counted = (call, r1, r2, r3, r4, r5) -> {
                calls.incrementAndGet();
                return real.body().call(call, r1, r2, r3, r4, r5);
            };
            b.add(id, real.name(), counted, real.lookupInlining());
        }
        return b.build();
    }

    static RunContext context(MapTable maps) {
        RunContext.Builder c = RunContext.builder();
        maps.regions().forEach(c::region);
        return c.build();
    }

    static long word(byte[] v, int off) { return ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN).getLong(off); }

    @Test
    void jitThreadsAndJavaLockedLookupsExcludeEachOther() throws Exception {
        int threads = 4, runs = 50_000;
        try (MapTable maps = MapTable.create(defs())) {
            AtomicInteger calls = new AtomicInteger();
            LoadOptions o = LoadOptions.defaults().withHelpers(counting(maps, calls));
            RunContext ctx = context(maps);
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicReference<String> torn = new AtomicReference<>();
            AtomicInteger lockedReads = new AtomicInteger();
            Thread reader = new Thread(() -> { // BPF_F_LOCK lookups from Java take the same lock word
                while (running.get()) {
                    byte[] v = maps.map(0).lookup(new byte[4], MapFlags.BPF_F_LOCK).orElseThrow();
                    lockedReads.incrementAndGet();
                    if (word(v, 8) != word(v, 16)) torn.compareAndSet(null, word(v, 8) + " != " + word(v, 16));
                }
            });
            reader.start();
            try (Executable x = Jit.ENGINE.load(counter(maps, 0, 0), o)) {
                List<Thread> ts = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    ts.add(new Thread(() -> {
                        for (int i = 0; i < runs; i++) assertThat(x.run(ctx)).isZero();
                    }));
                }
                ts.forEach(Thread::start);
                for (Thread t : ts) t.join();
            } finally {
                running.set(false);
                reader.join();
            }
            byte[] v = maps.map(0).lookup(new byte[4]).orElseThrow();
            assertThat(word(v, 8)).isEqualTo((long) threads * runs);
            assertThat(word(v, 16)).isEqualTo((long) threads * runs);
            assertThat(torn.get()).as("a locked lookup saw a half-done update").isNull();
            assertThat(lockedReads.get()).isPositive();
            // the helpers ran only where the native code handed a contended wait over (a few, at most)
            assertThat(calls.get()).as("helper calls").isLessThan(threads * runs / 100);
        }
    }

    @Test
    void addressesThatAreNotALockFailAsOnTheInterpreter() {
        int[][] cases = {{2, 0}, {8, 0}, {12, 0}, {0, 4}, {-4, 0}, {48, 0}};
        for (int[] c : cases) {
            String[] outcome = new String[2];
            int i = 0;
            for (Engine engine : new Engine[]{Both.INTERP, Jit.ENGINE}) {
                try (MapTable maps = MapTable.create(defs());
                     Executable x = engine.load(counter(maps, c[0], c[1]), LoadOptions.defaults().withHelpers(BpfHelpers.registry(maps)))) {
                    outcome[i] = "r0=" + x.run(context(maps));
                } catch (BpfRuntimeException e) {
                    outcome[i] = e.kind() + "@" + e.pc();
                }
                i++;
            }
            assertThat(outcome[1]).as("lock at +%d, unlock at +%d", c[0], c[1]).isEqualTo(outcome[0]);
            assertThat(outcome[0]).isEqualTo(ErrorKind.BAD_HELPER_ARGUMENT + "@" + (c[0] != 0 ? LOCK_PC : UNLOCK_PC));
        }
    }

    @Test
    void aLockHeldByJavaIsWaitedForAndALeakedOneTimesOut() throws Exception {
        try (MapTable maps = MapTable.create(defs())) {
            AtomicInteger calls = new AtomicInteger();
            LoadOptions o = LoadOptions.defaults().withHelpers(counting(maps, calls));
            long key = NativeMemory.allocate(4);
            long lock = maps.map(0).programLookup(key);
            NativeMemory.free(key);
            try (Executable x = Jit.ENGINE.load(counter(maps, 0, 0), o)) {
                assertThat(SpinLock.tryLock(lock)).isTrue();
                Thread releaser = new Thread(() -> {
                    try { Thread.sleep(100); } catch (InterruptedException e) { throw new RuntimeException(e); }
                    SpinLock.unlock(lock);
                });
                releaser.start();
                assertThat(x.run(context(maps))).isZero(); // waits (native spin, then the helper) until Java releases
                releaser.join();
                assertThat(NativeMemory.getInt(lock)).as("released by the program").isZero();

                assertThat(SpinLock.tryLock(lock)).isTrue(); // never released: HELPER_FAILED at the lock's pc, no hang
                long t0 = System.nanoTime();
                try {
                    x.run(context(maps));
                    throw new AssertionError("the run should have failed");
                } catch (BpfRuntimeException e) {
                    assertThat(e.kind()).isEqualTo(ErrorKind.HELPER_FAILED);
                    assertThat(e.pc()).isEqualTo(LOCK_PC);
                    assertThat(e.getMessage()).contains("held for more than");
                }
                assertThat(System.nanoTime() - t0).isLessThan(10 * SpinLock.TIMEOUT_NANOS);
                SpinLock.unlock(lock);
            }
            byte[] v = maps.map(0).lookup(new byte[4]).orElseThrow();
            assertThat(word(v, 8)).isEqualTo(1);
        }
    }

    /** v = lookup(map, &0); if (!v) return 1; unlock(v); return 0. The unlock call is at pc 9. */
    static Program unlockOnly(MapTable maps) {
        long h = maps.handle(0);
        return new Program("unlock", List.of(
                stw(10, -4, 0), movr(2, 10), addi(2, -4),
                new Insn(LDDW, 1, PSEUDO_IMM64, 0, (int) h), new Insn(0, 0, 0, 0, (int) (h >>> 32)),
                call(HelperIds.MAP_LOOKUP_ELEM), jeqi(0, 0, 3), movr(6, 0),
                movr(1, 6), call(HelperIds.SPIN_UNLOCK) /* pc 9 */,
                mov(0, 0), exit(), mov(0, 1), exit()));
    }

    /** A run's table as a hand-built RunContext may have it, for the maps of a load. */
    enum Table {
        NONE { List<MemoryRegion> regions(MapTable m, long other) { return List.of(); } },
        READ_ONLY { List<MemoryRegion> regions(MapTable m, long other) {
            return m.regions().stream().map(r -> new MemoryRegion(r.name(), r.start(), r.length(), false)).toList(); } },
        OTHER_ONLY { List<MemoryRegion> regions(MapTable m, long other) { return List.of(new MemoryRegion("other", other, 64, true)); } },
        /** The maps' regions after another writable one, which the inline stores' cache holds: the lock is found by the scan. */
        OTHER_FIRST { List<MemoryRegion> regions(MapTable m, long other) {
            List<MemoryRegion> all = new ArrayList<>(OTHER_ONLY.regions(m, other));
            all.addAll(m.regions());
            return all; } };
        abstract List<MemoryRegion> regions(MapTable m, long other);
    }

    /** r0 or kind@pc of one run, the lock word after it, and the lock/unlock helper calls. */
    static String run(Engine engine, boolean unlock, Table table, long other) {
        try (MapTable maps = MapTable.create(defs())) {
            AtomicInteger calls = new AtomicInteger();
            LoadOptions o = LoadOptions.defaults().withHelpers(counting(maps, calls));
            RunContext.Builder c = RunContext.builder();
            table.regions(maps, other).forEach(c::region);
            long key = NativeMemory.allocate(4);
            NativeMemory.putInt(key, 0);
            long lock = maps.map(0).programLookup(key);
            NativeMemory.free(key);
            if (unlock) assertThat(SpinLock.tryLock(lock)).isTrue();
            String out;
            try (Executable x = engine.load(unlock ? unlockOnly(maps) : counter(maps, 0, 0), o)) {
                out = "r0=" + x.run(c.build());
            } catch (BpfRuntimeException e) {
                out = e.kind() + "@" + e.pc();
            }
            return out + " lock=" + NativeMemory.getInt(lock) + " calls=" + calls.get();
        }
    }

    @Test
    void theRunsRegionsDecideAsInTheHelper() {
        long other = NativeMemory.allocate(64);
        try {
            for (boolean unlock : new boolean[] {false, true}) {
                for (Table t : Table.values()) {
                    String interp = run(Both.INTERP, unlock, t, other), jit = run(Jit.ENGINE, unlock, t, other);
                    String what = (unlock ? "unlock" : "lock") + ", table " + t;
                    if (t == Table.OTHER_FIRST) {
                        assertThat(interp).as(what).startsWith("r0=0 lock=0");
                        assertThat(jit).as("JIT takes the lock natively: %s", what).isEqualTo(interp.replaceAll("calls=\\d+$", "calls=0"));
                    } else {
                        // the helper refuses a lock word outside the run's writable regions; the JIT calls it and so refuses too
                        assertThat(interp).as(what).isEqualTo(ErrorKind.BAD_HELPER_ARGUMENT + "@" + (unlock ? 9 : LOCK_PC)
                                + " lock=" + (unlock ? 1 : 0) + " calls=1");
                        assertThat(jit).as("JIT vs interpreter: %s", what).isEqualTo(interp);
                    }
                }
            }
        } finally {
            NativeMemory.free(other);
        }
    }
}
