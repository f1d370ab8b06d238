package dev.bpf4j.bench;

import java.io.File;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Compares engine builds on a shared machine, where JMH forks cannot: every build runs in the SAME
 * JVM, each loaded from its own jar by its own class loader (so each has its own classes, JIT
 * compilations and profiles), in alternating 100 ms batches timed by thread CPU time. A slow phase
 * of the machine (other processes on the core's sibling, a throttled host) then hits every column
 * at once instead of one fork, and a native column ({@code gcc@jar}) shows when it happens.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.bpf4j.bench.InterleavedRuns fnv1a 6 old.jar new.jar gcc@new.jar
 * PRE=fnv1a,xorshift,sort,parse java ... InterleavedRuns fnv1a 8 old.jar new.jar   # polluted profile
 * </pre>
 *
 * Arguments: workload, seconds, then one {@code [engine@]jar} per column (engine interp by default,
 * or jit, gcc). {@code PRE} (environment): workloads each column's engine runs for 300 ms first,
 * so that the interpreter's profile holds several programs, as in a JVM that runs many. Prints,
 * per column, ns per executed BPF instruction (the {@link StepCounter} count; for the native
 * columns the same count, for comparison) over the second half of the batches: the fastest batch
 * and the median; {@code SERIES=1} also prints every batch.
 */
public final class InterleavedRuns {
    private InterleavedRuns() {}

    private static final long BATCH_NS = 100_000_000L;

    public static void main(String[] args) throws Throwable {
        if (args.length < 3) {
            System.err.println("usage: InterleavedRuns WORKLOAD SECONDS [ENGINE@]JAR...");
            System.exit(2);
        }
        String workload = args[0];
        Workload w = Workload.byId(workload);
        long insns;
        try (DataBuffer data = new DataBuffer(w.input())) {
            insns = new StepCounter(w.program()).run(data.address(), data.length()).count();
        }
        double seconds = Double.parseDouble(args[1]);
        int n = args.length - 2;
        MethodHandle[] runs = new MethodHandle[n];
        Object[] targets = new Object[n];
        for (int i = 0; i < n; i++) {
            String spec = args[i + 2];
            int at = spec.indexOf('@');
            String engine = at < 0 ? "interp" : spec.substring(0, at);
            ClassLoader loader = new URLClassLoader(new URL[]{new File(spec.substring(at + 1)).toURI().toURL()},
                    ClassLoader.getPlatformClassLoader());
            String pre = System.getenv("PRE");
            if (pre != null) {
                for (String p : pre.split(",")) {
                    Object t = target(loader, engine, p);
                    MethodHandle run = runHandle(loader, t);
                    for (long end = System.nanoTime() + 300_000_000L; System.nanoTime() < end; ) { long ignored = (long) run.invoke(); }
                }
            }
            targets[i] = target(loader, engine, workload);
            runs[i] = runHandle(loader, targets[i]);
        }
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        List<List<Double>> perInsn = new ArrayList<>();
        for (int i = 0; i < n; i++) perInsn.add(new ArrayList<>());
        long sink = 0;
        for (long end = System.nanoTime() + (long) (seconds * 1e9); System.nanoTime() < end; ) {
            for (int i = 0; i < n; i++) {
                long cpu0 = mx.getCurrentThreadCpuTime(), calls = 0;
                for (long stop = System.nanoTime() + BATCH_NS; System.nanoTime() < stop; calls += 16) {
                    for (int j = 0; j < 16; j++) sink += (long) runs[i].invoke();
                }
                perInsn.get(i).add((mx.getCurrentThreadCpuTime() - cpu0) / (double) calls / insns);
            }
        }
        StringBuilder line = new StringBuilder(workload + " (" + insns + " insns, cpu ns/insn, 2nd half: fastest / median)");
        for (int i = 0; i < n; i++) {
            List<Double> all = perInsn.get(i);
            List<Double> tail = new ArrayList<>(all.subList(all.size() / 2, all.size()));
            Collections.sort(tail);
            line.append(String.format("%n  %-40s %.2f / %.2f", args[i + 2], tail.get(0), tail.get(tail.size() / 2)));
        }
        System.out.println(line);
        if (System.getenv("SERIES") != null) {
            for (int i = 0; i < n; i++) {
                StringBuilder s = new StringBuilder(args[i + 2] + ":");
                for (double v : perInsn.get(i)) s.append(String.format(" %.2f", v));
                System.out.println(s);
            }
        }
        if (sink == 42) System.out.println(); // keeps the results alive
    }

    /** A {@link Target} of {@code engine} on {@code workload}, built by the classes of {@code loader}. */
    private static Object target(ClassLoader loader, String engine, String workload) throws Throwable {
        Thread.currentThread().setContextClassLoader(loader); // EngineParams finds engines through the ServiceLoader
        MethodHandles.Lookup l = MethodHandles.publicLookup();
        Class<?> wk = loader.loadClass(Workload.class.getName()), d = loader.loadClass(DataBuffer.class.getName());
        Class<?> t = loader.loadClass(Target.class.getName()), g = loader.loadClass(GccLibrary.class.getName());
        Object wl = l.findStatic(wk, "byId", MethodType.methodType(wk, String.class)).invoke(workload);
        Object data = l.findConstructor(d, MethodType.methodType(void.class, byte[].class))
                .invoke((byte[]) l.findVirtual(wk, "input", MethodType.methodType(byte[].class)).invoke(wl));
        Object gcc = !engine.equals(EngineParams.GCC) ? null : l.findStatic(g, "compile", MethodType.methodType(g)).invoke();
        return l.findStatic(t, "create", MethodType.methodType(t, String.class, wk, d, g)).invoke(engine, wl, data, gcc);
    }

    private static MethodHandle runHandle(ClassLoader loader, Object target) throws Exception {
        Class<?> t = loader.loadClass(Target.class.getName());
        return MethodHandles.publicLookup().findVirtual(t, "run", MethodType.methodType(long.class))
                .bindTo(target).asType(MethodType.methodType(long.class));
    }
}
