package dev.bpf4j.jit.probe;

import dev.bpf4j.asm.Assembler;
import dev.bpf4j.jit.runtime.NativeStackId;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.maps.StackTraceMap;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.stack.StackHelpers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static dev.bpf4j.stack.StackFlags.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The native bpf_get_stackid against the Java helper: on every hit, one probe runs three programs
 * (JIT with the native helper, JIT with {@code -Dbpf4j.jit.nativeStackId=false}, the interpreter),
 * each with its own map of the same shape and its own list of returned ids. All three lists and all
 * three maps (id by id, ips and all) must be equal, over fentry and displaced entries, frames of
 * {@code -fomit-frame-pointer} code (CFI), a 25-frame chain, a caller whose return is probed, a
 * caller that puts garbage in rbp, every flag and full or colliding maps, and threads hitting at
 * once. Each case also checks that the native code answered most hits itself (the first hit on a
 * new stack goes to Java, which confirms its steps).
 */
class NativeStackIdDifferentialTest {
    /** The chain {@code sd_d24 -> ... -> sd_d0 -> sd_leaf} and {@code sd_corrupt}, which calls sd_leaf with rbp = sd_garbage. */
    static final String SOURCE = chainSource();

    private static Path lib;

    private static synchronized String path() {
        if (lib == null) {
            org.junit.jupiter.api.Assumptions.assumeTrue(PatchableLibrary.gccAvailable(), "gcc is not installed");
            lib = PatchableLibrary.build("stackdiff", SOURCE, List.of());
        }
        return lib.toString();
    }

    private static long address(String symbol) { return NativeProbes.address(path(), symbol); }

    private static String chainSource() {
        StringBuilder s = new StringBuilder("#define NI __attribute__((noinline))\n"
                + "__attribute__((visibility(\"hidden\"))) volatile long sd_sink;\n"
                + "__attribute__((visibility(\"hidden\"))) long sd_garbage;\n"
                + "NI long sd_leaf(long a) { return a * 3 + 1; }\n"
                + "NI long sd_set_garbage(long g) { sd_garbage = g; return 0; }\n"
                + "NI long sd_d0(long a) { long r = sd_leaf(a) + sd_leaf(a + 1); sd_sink = r; return r + 1; }\n");
        for (int i = 1; i < 25; i++) {
            s.append("NI long sd_d").append(i).append("(long a) { long r = sd_d").append(i - 1).append("(a + 1); sd_sink = r; return r + 1; }\n");
        }
        // rbp = sd_garbage across the call; 1 means "a frame whose saved rbp points at itself"
        s.append("__asm__(\".text\\n.globl sd_corrupt\\n.type sd_corrupt,@function\\nsd_corrupt:\\n"
                + "  push %rbp\\n  push %rbx\\n  sub $8, %rsp\\n  mov sd_garbage(%rip), %rbp\\n"
                + "  cmp $1, %rbp\\n  jne 1f\\n  mov %rsp, (%rsp)\\n  mov %rsp, %rbp\\n"
                + "1: call sd_leaf@PLT\\n  add $8, %rsp\\n  pop %rbx\\n  pop %rbp\\n  ret\\n.size sd_corrupt, .-sd_corrupt\\n\");\n");
        return s.toString();
    }

    /** One engine's program on the probe: its map table and the ids it returned, hit by hit. */
    private record Run(String engine, MapTable maps, long out, Executable program, ProbeLink link) implements AutoCloseable {
        List<Long> ids() {
            long n = NativeMemory.getLong(out);
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < n; i++) ids.add(NativeMemory.getLong(out + 8 + 8L * i));
            return ids;
        }

        Map<Integer, List<Long>> contents() {
            StackTraceMap m = (StackTraceMap) maps.map(0);
            Map<Integer, List<Long>> out = new LinkedHashMap<>();
            for (int id = 0; id < m.buckets(); id++) {
                StackTraceMap.Bucket b = m.bucket(id);
                if (b != null) {
                    List<Long> ips = new ArrayList<>();
                    ips.add((long) b.hash());
                    for (long ip : b.ips()) ips.add(ip);
                    out.put(id, ips);
                }
            }
            return out;
        }

        @Override public void close() {
            link.close();
            program.close();
            maps.close();
            NativeMemory.free(out);
        }
    }

    private static final int SLOTS = 256;
    private final List<Run> runs = new ArrayList<>();

    @AfterEach
    void detach() {
        for (Run r : runs) r.close();
        runs.clear();
    }

    /** Attaches the three programs to {@code fn} (at its return when {@code atReturn}). */
    private List<Run> attach(long fn, String name, boolean atReturn, long flags, int depth, int maxEntries) {
        List<Run> three = new ArrayList<>();
        for (String engine : List.of("native", "java", "interp")) {
            MapTable maps = MapTable.create(List.of(new MapDefinition("stacks", MapType.STACK_TRACE, 4, depth * 8, maxEntries, 0)));
            long out = NativeMemory.allocate(8 + 8L * SLOTS);
            NativeMemory.setMemory(out, 8 + 8L * SLOTS, (byte) 0);
            HelperRegistry helpers = StackHelpers.register(HelperRegistry.builder(), maps).build();
            Executable x;
            if (engine.equals("java")) System.setProperty("bpf4j.jit.nativeStackId", "false");
            try {
                x = (engine.equals("interp") ? Engines.INTERP : Engines.JIT_DIRECT).load(program(maps.handle(0), out, flags),
                        LoadOptions.defaults().withHelpers(helpers));
            } finally {
                System.clearProperty("bpf4j.jit.nativeStackId");
            }
            ProbeProgram p = ProbeProgram.of(x, List.of(new MemoryRegion("out", out, 8 + 8L * SLOTS, true)));
            ProbeLink link = atReturn ? NativeProbes.attachReturn(fn, name, p) : NativeProbes.attach(fn, name, p);
            Run r = new Run(engine, maps, out, x, link);
            runs.add(r);
            three.add(r);
        }
        return three;
    }

    /** out[1 + n] = bpf_get_stackid(ctx, map, flags); n = out[0]++ (n kept below SLOTS). */
    private static Program program(long map, long out, long flags) {
        return Assembler.assembleProgram("stackdiff", String.join("\n",
                "lddw %r6, " + out,
                "ldxdw %r7, [%r6+0]",
                "and %r7, " + (SLOTS - 1),
                "mov %r8, %r7",
                "lsh %r8, 3",
                "add %r8, %r6",
                "lddw %r2, " + map,
                "lddw %r3, " + flags,
                "call 27",
                "stxdw [%r8+8], %r0",
                "add %r7, 1",
                "stxdw [%r6+0], %r7",
                "mov %r0, 0",
                "exit"));
    }

    /** The three runs agree hit by hit and bucket by bucket; returns the native run's ids. */
    private static List<Long> assertSame(List<Run> three, String what) {
        for (Run r : three) assertThat(r.link().errors()).as("%s %s: %s", what, r.engine(), r.link().lastError()).isZero();
        List<Long> ids = three.get(0).ids();
        assertThat(ids).as("%s: hits", what).isNotEmpty();
        for (Run r : three.subList(1, 3)) {
            assertThat(r.ids()).as("%s: ids native vs %s", what, r.engine()).isEqualTo(ids);
            assertThat(three.get(0).contents()).as("%s: map native vs %s", what, r.engine()).isEqualTo(r.contents());
        }
        return ids;
    }

    private static long rootCall(long fn, long arg) { return RootCall.get().call(fn, arg); }

    @Test
    void fentryChainOf25FramesEveryFlag() {
        long top = address("sd_d24"), leaf = address("sd_leaf");
        long[] flagSet = {0, 1, 3, 30, 200, BPF_F_USER_STACK, BPF_F_FAST_STACK_CMP, BPF_F_REUSE_STACKID,
                BPF_F_FAST_STACK_CMP | BPF_F_REUSE_STACKID | 2, 1L << 11};
        int[][] shapes = {{127, 1024}, {4, 1}, {1, 2}, {30, 3}};
        long before = NativeStackId.nativeResults();
        for (long flags : flagSet) {
            for (int[] shape : shapes) {
                List<Run> three = attach(leaf, "sd_leaf", false, flags, shape[0], shape[1]);
                for (int i = 0; i < 4; i++) rootCall(top, i);
                List<Long> ids = assertSame(three, "flags 0x" + Long.toHexString(flags) + " depth " + shape[0] + " entries " + shape[1]);
                assertThat(ids).hasSize(8);
                detach();
            }
        }
        assertThat(NativeStackId.nativeResults() - before).as("hits the native code answered").isGreaterThan(flagSet.length * shapes.length * 4L);
    }

    @Test
    void theTraceIsTheFull27FrameChain() {
        List<Run> three = attach(address("sd_leaf"), "sd_leaf", false, 0, 127, 64);
        rootCall(address("sd_d24"), 1);
        rootCall(address("sd_d24"), 1);
        assertSame(three, "chain");
        StackTraceMap m = (StackTraceMap) three.get(0).maps().map(0);
        long id = three.get(0).ids().get(0);
        assertThat(m.ips((int) id).orElseThrow()).hasSize(1 + 25 + 1);   // leaf, d0..d24, the root thunk
    }

    @Test
    void displacedEntriesWithAndWithoutFramePointers() {
        for (AnyEntryLib lib : List.of(AnyEntryLib.O2, AnyEntryLib.O2FP, AnyEntryLib.O0, AnyEntryLib.CET)) {
            for (String fn : List.of("ae_leaf", "ae_mid")) {
                List<Run> three = attach(lib.address(fn), fn, false, 0, 127, 1024);
                for (int i = 0; i < 3; i++) rootCall(lib.address("ae_top"), i);
                assertThat(assertSame(three, lib + " " + fn)).hasSize(6);
                detach();
            }
        }
    }

    @Test
    void aReturnProbeOnACallerAndProgramsAtAReturn() {
        long before = NativeStackId.fallbacks();
        // entry probes on the leaf while sd_d3's return address is swapped for the return trampoline
        List<Run> atEntry = attach(address("sd_leaf"), "sd_leaf", false, 0, 127, 1024);
        List<Run> atReturn = attach(address("sd_d3"), "sd_d3", true, 0, 127, 1024);
        for (int i = 0; i < 3; i++) rootCall(address("sd_d24"), i);
        assertSame(atEntry, "entry, caller's return probed");
        assertSame(atReturn, "at sd_d3's return");
        assertThat(NativeStackId.fallbacks() - before).as("a swapped return address goes to Java").isGreaterThanOrEqualTo(6);
    }

    @Test
    void garbageInRbpNeverCrashesAndMatchesJava() {
        long heap = NativeMemory.allocate(64);
        try {
            NativeMemory.setMemory(heap, 64, (byte) 0x41);
            long[] garbage = {0, 1, 0x1234, heap, -16, 0x7fff_ffff_fff0L, 0xdead_beef_0000L};
            for (long g : garbage) {
                NativeProbesCall.set(address("sd_set_garbage"), g);
                List<Run> three = attach(address("sd_leaf"), "sd_leaf", false, 0, 127, 1024);
                for (int i = 0; i < 3; i++) rootCall(address("sd_corrupt"), i);
                assertSame(three, "rbp = 0x" + Long.toHexString(g));
                detach();
            }
        } finally {
            NativeMemory.free(heap);
        }
    }

    @Test
    void threadsHittingAtOnceKeepTheMapWhole() throws Exception {
        List<Run> three = attach(address("sd_leaf"), "sd_leaf", false, 0, 127, 1024);
        rootCall(address("sd_d24"), 0);   // the first hit confirms the steps
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            threads.add(new Thread(() -> {
                try {
                    for (int i = 0; i < 15; i++) rootCall(address(i % 2 == 0 ? "sd_d24" : "sd_d7"), i);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) t.join();
        assertThat(failure.get()).isNull();
        for (Run r : three) assertThat(r.link().errors()).as("%s", r.link().lastError()).isZero();
        // order differs between programs, so compare the sets of ids and the stored traces
        Map<Integer, List<Long>> expected = three.get(2).contents();
        for (Run r : three) {
            assertThat(r.contents()).as(r.engine()).isEqualTo(expected);
            assertThat(r.ids().stream().distinct().sorted().toList()).as(r.engine()).isEqualTo(three.get(2).ids().stream().distinct().sorted().toList());
            StackTraceMap m = (StackTraceMap) r.maps().map(0);
            assertThat(m.freeElements() + r.contents().size()).as("%s: elements", r.engine()).isEqualTo(1024);
        }
    }

    /**
     * bpf_get_stack: out = {r0, the 256-byte stack buffer after the call}, the buffer filled with 0x55
     * first (so zero-filling shows), hit after hit. {@code size} is r3 (the helper takes its low 32 bits).
     */
    private static Program getStackProgram(long out, long size, long flags) {
        StringBuilder p = new StringBuilder();
        for (int i = 0; i < 32; i++) p.append("lddw %r1, 0x5555555555555555\nstxdw [%r10-").append(256 - 8 * i).append("], %r1\n");
        p.append("mov %r2, %r10\nadd %r2, -256\nlddw %r3, ").append(size).append("\nlddw %r4, ").append(flags).append("\ncall 67\n");
        p.append("lddw %r6, ").append(out).append("\nstxdw [%r6+0], %r0\n");
        for (int i = 0; i < 32; i++) p.append("ldxdw %r1, [%r10-").append(256 - 8 * i).append("]\nstxdw [%r6+").append(8 + 8 * i).append("], %r1\n");
        p.append("mov %r0, 0\nexit");
        return Assembler.assembleProgram("getstack", p.toString());
    }

    @Test
    void getStackCopiesAndZeroFillsAsTheJavaHelper() {
        long leaf = address("sd_leaf"), top = address("sd_d24");
        long[][] cases = {{256, 0}, {64, 0}, {8, 0}, {256, 3}, {256, 30}, {64, 2}, {256, BPF_F_USER_STACK},
                {256, BPF_F_USER_BUILD_ID}, {12, 0}, {0, 0}, {256, 1L << 12}};
        long before = NativeStackId.nativeResults();
        for (long[] c : cases) {
            List<long[]> outs = new ArrayList<>();
            List<ProbeLink> links = new ArrayList<>();
            List<Executable> programs = new ArrayList<>();
            try {
                for (String engine : List.of("native", "java", "interp")) {
                    long out = NativeMemory.allocate(8 + 256);
                    outs.add(new long[] {out});
                    HelperRegistry helpers = StackHelpers.register(HelperRegistry.builder(), MapTable.create(List.of())).build();
                    if (engine.equals("java")) System.setProperty("bpf4j.jit.nativeStackId", "false");
                    Executable x;
                    try {
                        x = (engine.equals("interp") ? Engines.INTERP : Engines.JIT_DIRECT).load(getStackProgram(out, c[0], c[1]),
                                LoadOptions.defaults().withHelpers(helpers));
                    } finally {
                        System.clearProperty("bpf4j.jit.nativeStackId");
                    }
                    programs.add(x);
                    links.add(NativeProbes.attach(leaf, "sd_leaf", ProbeProgram.of(x, List.of(new MemoryRegion("out", out, 8 + 256, true)))));
                }
                for (int hit = 0; hit < 3; hit++) {
                    rootCall(top, hit);   // two hits per call (sd_d0 calls sd_leaf twice): the last is compared
                    byte[] expected = NativeMemory.read(outs.get(2)[0], 8 + 256);
                    for (int e = 0; e < 3; e++) {
                        assertThat(links.get(e).errors()).as("size %d flags 0x%x: %s", c[0], c[1], links.get(e).lastError()).isZero();
                        assertThat(NativeMemory.read(outs.get(e)[0], 8 + 256)).as("size %d flags 0x%x engine %d", c[0], c[1], e).isEqualTo(expected);
                    }
                }
            } finally {
                for (ProbeLink l : links) l.close();
                for (Executable x : programs) x.close();
                for (long[] o : outs) NativeMemory.free(o[0]);
            }
        }
        assertThat(NativeStackId.nativeResults() - before).as("hits the native code answered").isGreaterThan(20);
    }

    /** Calls the library's setter (plain jffi: no stack of interest). */
    private static final class NativeProbesCall {
        static void set(long fn, long value) { TestLib.call1(fn, value); }
    }
}
