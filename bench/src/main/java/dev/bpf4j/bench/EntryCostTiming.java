package dev.bpf4j.bench;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;

import java.util.Arrays;
import java.util.List;

/**
 * The cost of entering the JIT next to the bare jffi call gcc's functions pay, in one JVM: parse
 * and an empty program on the JIT and on gcc, in alternating chunks of 200,000 calls, each timed
 * by its own monomorphic loop, parse compiled with its byte loads kept (LoadCombining off), and
 * gcc's functions called through the JIT's own JNI entry as well ({@code gcc-jni}). ns per call (fastest, 10th percentile, median chunk) and the JIT/gcc ratios of the fastest chunks. {@code java -cp bench/target/benchmarks.jar
 * dev.bpf4j.bench.EntryCostTiming [rounds] [loop-jit|loop-bytes|loop-empty|loop-gcc]}: the loop modes run one
 * of the loops alone, for {@code perf record} (JIT code named in the perf map).
 */
public final class EntryCostTiming {
    private EntryCostTiming() {}

    private static final int CHUNK = 200_000;

    private static long jit(Executable e, RunContext c, int n) {
        long s = 0;
        for (int i = 0; i < n; i++) s += e.run(c);
        return s;
    }

    private static long gcc(GccLibrary.NativeFunction f, long a, long l, int n) {
        long s = 0;
        for (int i = 0; i < n; i++) s += f.call(a, l);
        return s;
    }

    private static long gccJni(GccLibrary.NativeFunction f, long a, long l, int n) {
        long s = 0;
        for (int i = 0; i < n; i++) s += f.callThroughJniEntry(a, l);
        return s;
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        String mode = args.length > 1 ? args[1] : "";
        Workload w = Workload.byId("parse");
        Program empty = new Program("empty", List.of(new Insn(0xb7, 0, 0, 0, 0), new Insn(0x95, 0, 0, 0, 0)));
        LoadOptions options = new LoadOptions(LoadOptions.defaults().helpers(), 2, mode.startsWith("loop"), false);
        GccLibrary lib = GccLibrary.compile();
        try (DataBuffer d = new DataBuffer(w.input());
             Executable exe = Bpf.load(w.program(), EngineParams.require("jit"), options);
             Executable nothing = Bpf.load(empty, EngineParams.require("jit"), options);
             Executable bytes = loadWithoutCombining(w.program(), options)) {
            RunContext ctx = d.context();
            GccLibrary.NativeFunction parse = lib.function(w.nativeSymbol()), none = lib.function("native_empty");
            if (exe.run(ctx) != parse.call(d.address(), d.length())) throw new IllegalStateException("the JIT disagrees with gcc");
            long sink = 0;
            if (mode.equals("loop-jit")) for (int r = 0; r < rounds; r++) sink += jit(exe, ctx, CHUNK);
            else if (mode.equals("loop-empty")) for (int r = 0; r < rounds; r++) sink += jit(nothing, ctx, CHUNK);
            else if (mode.equals("loop-gcc")) for (int r = 0; r < rounds; r++) sink += gcc(parse, d.address(), d.length(), CHUNK);
            else if (mode.equals("loop-bytes")) for (int r = 0; r < rounds; r++) sink += jit(bytes, ctx, CHUNK);
            else time(rounds, new Executable[]{exe, bytes, nothing}, ctx, parse, none, d);
            if (sink == 0x5eed) System.out.println();
        }
    }

    /** The program compiled with every byte load kept (LoadCombining off), for the A/B row. */
    private static Executable loadWithoutCombining(Program p, LoadOptions options) {
        String key = "bpf4j.jit.loadCombining", old = System.getProperty(key);
        System.setProperty(key, "false");
        try {
            return Bpf.load(p, EngineParams.require("jit"), options);
        } finally {
            if (old == null) System.clearProperty(key);
            else System.setProperty(key, old);
        }
    }

    /** jit[0] parse, jit[1] parse with its byte loads kept, jit[2] the empty program. */
    private static void time(int rounds, Executable[] jit, RunContext ctx,
                             GccLibrary.NativeFunction parse, GccLibrary.NativeFunction none, DataBuffer d) {
        String[] names = {"jit parse", "gcc parse", "jit empty", "gcc empty", "jit bytes", "gcc-jni parse", "gcc-jni empty"};
        double[][] t = new double[names.length][rounds];
        long sink = 0;
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < names.length; k++) {
                long t0 = System.nanoTime();
                if (k == 0) sink += jit(jit[0], ctx, CHUNK);
                else if (k == 1) sink += gcc(parse, d.address(), d.length(), CHUNK);
                else if (k == 2) sink += jit(jit[2], ctx, CHUNK);
                else if (k == 3) sink += gcc(none, d.address(), d.length(), CHUNK);
                else if (k == 4) sink += jit(jit[1], ctx, CHUNK);
                else if (k == 5) sink += gccJni(parse, d.address(), d.length(), CHUNK);
                else sink += gccJni(none, d.address(), d.length(), CHUNK);
                t[k][r] = (System.nanoTime() - t0) / (double) CHUNK;
            }
        }
        double[] best = new double[names.length];
        for (int k = 0; k < names.length; k++) {
            double[] s = Arrays.copyOfRange(t[k], rounds / 5, rounds); // the first fifth warms up
            Arrays.sort(s);
            best[k] = s[0];
            System.out.printf("%-13s fastest %6.2f  p10 %6.2f  median %6.2f ns/call%n", names[k], s[0], s[s.length / 10], s[s.length / 2]);
        }
        System.out.printf("jit/gcc (fastest chunks): parse %.2f, parse with byte loads %.2f, empty %.2f%n",
                best[0] / best[1], best[4] / best[1], best[2] / best[3]);
        System.out.printf("jit/gcc-jni, both through the JNI entry: parse %.2f, empty %.2f%s%n",
                best[0] / best[5], best[2] / best[6], sink == 0x5eed ? " " : "");
    }
}
