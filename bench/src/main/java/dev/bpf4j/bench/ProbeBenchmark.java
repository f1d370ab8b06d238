package dev.bpf4j.bench;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Type;
import dev.bpf4j.interp.InterpreterEngine;
import dev.bpf4j.asm.Assembler;
import dev.bpf4j.jit.JitEngine;
import dev.bpf4j.jit.probe.NativeProbes;
import dev.bpf4j.jit.probe.PatchableLibrary;
import dev.bpf4j.jit.probe.ProbeLink;
import dev.bpf4j.jit.probe.ProbeProgram;
import dev.bpf4j.jit.probe.RootCall;
import dev.bpf4j.api.BpfObject;
import dev.bpf4j.cli.trace.StackCount;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The cost of a native probe hit on {@code long probed(long a) { return a + 1; }} (built by gcc with
 * patchable entries, {@link PatchableLibrary}), called once through jffi ({@code call}) or
 * {@value #LOOP} times by a C loop ({@code loop}, ns per call: the jffi call spread out), with nothing attached
 * ({@code none}), with an empty JIT program ({@code r0 = 0; exit}: the trampoline's own cost, the issue's
 * figure; the trampoline still counts its hits), or with a program counting hits attached: a JIT program with native code only,
 * which the trampoline calls directly ({@code jit-direct}); the same plus one Java helper call, also
 * called directly, the helper reached through the bridge closure ({@code jit-java}); that program
 * forced through the upcall closure ({@code jit-upcall}, what JIT programs with Java helpers took
 * before); the counting program on the interpreter, always through the upcall ({@code interp}); the direct JIT
 * and the interpreter program on the function's return instead ({@code jit-direct-return}, {@code interp-return}: the
 * swap at entry, the return trampoline, the exit handler). The per-hit cost is each minus {@code none}. Teardown checks that the program counted every hit.
 *
 * <p>{@code stackcount-native} / {@code stackcount-java}: the CLI's bundled stackcount.o (BCC-style
 * {@code counts[bpf_get_stackid(ctx, &stacks, 0)] += 1}) on the JIT, direct, with
 * bpf_get_stackid as native code or (with {@code -Dbpf4j.jit.nativeStackId=false} at load) the Java
 * helper through the bridge; {@code loop} then calls {@code probed} under a 20-frame stack
 * ({@code probed, sc_d0 .. sc_d16, deep_loop} and the root thunk, which ends every walk there).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ProbeBenchmark {
    @Param({"none", "jit-empty", "jit-direct", "jit-java", "jit-upcall", "interp", "jit-direct-return", "interp-return",
            "stackcount-native", "stackcount-java"})
    public String probe;

    /**
     * How {@code probed} begins: {@code fentry} (gcc -pg -mfentry -mnop-mcount: the trampoline returns
     * after the 5-byte nop) or {@code displaced} (plain gcc -O2 -fPIC: {@code lea rax, [rdi + 1]; ret}
     * displaced, so the trampoline ends by running that copy).
     */
    @Param({"fentry", "displaced"})
    public String entry;

    private static final CallContext L_L = CallContext.getCallContext(Type.SINT64, new Type[]{Type.SINT64}, CallingConvention.DEFAULT, false);
    private static final Invoker INVOKER = Invoker.getInstance();

    /** Calls from C per {@link #loop} op: the jffi call's cost and noise spread over many hits. */
    static final int LOOP = 1000;
    static final String SOURCE = String.join("\n",
            "__attribute__((noinline)) long probed(long a) { return a + 1; }",
            "__attribute__((noinline, no_instrument_function)) long loop(long n) {",
            "    long s = 0;",
            "    for (long i = 0; i < n; i++) s += probed(i);",
            "    return s;",
            "}",
            chain(), "");

    /** {@code sc_d0} calls probed, {@code sc_d(i)} calls {@code sc_d(i - 1)}, {@code deep_loop(n)} calls sc_d16 n times. */
    private static String chain() {
        StringBuilder c = new StringBuilder("static volatile long sc_sink;\n"
                + "__attribute__((noinline)) long sc_d0(long a) { long r = probed(a); sc_sink = r; return r + 1; }\n");
        for (int i = 1; i <= 16; i++) {
            c.append("__attribute__((noinline)) long sc_d").append(i).append("(long a) { long r = sc_d").append(i - 1)
                    .append("(a); sc_sink = r; return r + 1; }\n");
        }
        return c.append("__attribute__((noinline, no_instrument_function)) long deep_loop(long n) {\n"
                + "    long s = 0;\n    for (long i = 0; i < n; i++) s += sc_d16(i);\n    return s;\n}\n").toString();
    }

    private long function;
    private long loop;
    private boolean stackcount;
    private BpfObject object;
    private long counter;
    private Executable exe;
    private ProbeLink link;
    private boolean empty;

    @Setup(Level.Trial)
    public void setUp() {
        String lib = entry.equals("fentry") ? PatchableLibrary.build("probebench", SOURCE, List.of()).toString() : plainLibrary();
        function = NativeProbes.address(lib, "probed");
        loop = NativeProbes.address(lib, "loop");
        counter = NativeMemory.allocate(8);
        NativeMemory.putLong(counter, 0);
        if (probe.equals("none")) return;
        if (probe.startsWith("stackcount-")) {
            setUpStackCount(lib, probe.equals("stackcount-native"));
            return;
        }
        boolean atReturn = probe.endsWith("-return");
        String probe = atReturn ? this.probe.substring(0, this.probe.length() - "-return".length()) : this.probe;
        boolean javaHelper = probe.equals("jit-java") || probe.equals("jit-upcall");
        empty = probe.equals("jit-empty");
        Engine engine = probe.equals("interp") ? new InterpreterEngine() : new JitEngine();
        exe = Bpf.load(empty ? Assembler.assembleProgram("empty", "mov %r0, 0\nexit") : counting(javaHelper), engine, javaHelper ? LoadOptions.defaults().withHelpers(CallPrograms.IDENTITY_HELPERS)
                : LoadOptions.defaults());
        List<MemoryRegion> regions = List.of(new MemoryRegion("counter", counter, 8, true));
        ProbeProgram p = probe.equals("jit-upcall") ? ProbeProgram.upcall(exe, regions) : ProbeProgram.of(exe, regions);
        if (p.direct() != (empty || probe.equals("jit-direct") || probe.equals("jit-java"))) {
            throw new IllegalStateException(probe + ": direct = " + p.direct());
        }
        link = atReturn ? NativeProbes.attachReturn(function, "probed", p) : NativeProbes.attach(function, "probed", p);
        if (call() != 42 || counted() != 1) throw new IllegalStateException(probe + ": the probe did not count the hit");
    }

    private void setUpStackCount(String lib, boolean nativeHelper) {
        stackcount = true;
        loop = NativeProbes.address(lib, "deep_loop");
        if (!nativeHelper) System.setProperty("bpf4j.jit.nativeStackId", "false");
        try {
            object = StackCount.open().load("jit");
        } finally {
            System.clearProperty("bpf4j.jit.nativeStackId");
        }
        ProbeProgram p = ProbeProgram.of(object.program(StackCount.PROGRAM).defaultExecutable(), object.mapTable().regions());
        if (!p.direct()) throw new IllegalStateException(probe + ": not direct");
        link = NativeProbes.attach(function, "probed", p);
        RootCall.get().call(loop, 1);
        if (link.hits() != 1 || link.errors() != 0) throw new IllegalStateException(probe + ": " + link.hits() + " hits, " + link.lastError());
    }

    /** The same source built by plain {@code gcc -O2 -fPIC}: nothing instrumented. */
    private static String plainLibrary() {
        try {
            java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("bpf4j-probebench-");
            java.nio.file.Path c = dir.resolve("probebench.c"), so = dir.resolve("libprobebench-plain.so");
            java.nio.file.Files.writeString(c, SOURCE);
            PatchableLibrary.run(List.of("gcc", "-O2", "-fPIC", "-shared", "-o", so.toString(), c.toString()));
            for (java.nio.file.Path p : List.of(so, c, dir)) p.toFile().deleteOnExit();
            return so.toString();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** {@code *counter += 1} atomically, after {@code bench_identity(1)} when {@code javaHelper}. */
    private Program counting(boolean javaHelper) {
        return Assembler.assembleProgram("count_hits", String.join("\n",
                javaHelper ? "mov %r1, 1\ncall " + CallPrograms.IDENTITY_ID + "\nmov %r2, %r0" : "mov %r2, 1",
                "lddw %r1, " + counter,
                "lock add [%r1], %r2",
                "mov %r0, 0",
                "exit"));
    }

    /** Hits the program counted; the empty program counts none, so the trampoline's count stands in. */
    private long counted() { return empty ? link.hits() : NativeMemory.getLong(counter); }

    /** One jffi call of the function: what a Java caller pays. */
    @Benchmark
    public long call() { return INVOKER.invokeN1(L_L, function, 41); }

    /** The function called {@value #LOOP} times from C: ns per native call, probe hit included. */
    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long loop() { return stackcount ? RootCall.get().call(loop, LOOP) : INVOKER.invokeN1(L_L, loop, LOOP); }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (stackcount) {
            link.close();
            long stacks = object.mapTable().map("stacks").orElseThrow().keyList().size();
            if (link.errors() != 0 || stacks != 1) throw new IllegalStateException(probe + ": " + stacks + " stacks, " + link.lastError());
            object.close();
            return;
        }
        if (link != null) {
            link.close();
            if (link.errors() != 0 || counted() != link.hits()) {
                throw new IllegalStateException(probe + ": " + link.hits() + " hits, counter " + NativeMemory.getLong(counter) + ", "
                        + link.errors() + " errors " + link.lastError());
            }
            exe.close();
        }
    }
}
