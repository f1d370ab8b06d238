package dev.bpf4j.bench;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.RunContext;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A/B timing of one workload's JIT code with and without the data-buffer proofs, in one JVM, in
 * alternating chunks (the shared machine is too noisy for separate JMH runs): the same executable
 * run with the bench context (the entry guard takes the guarded copy) and with len one byte past
 * the region (the guard refuses: the checked body, every memory check), next to gcc and an empty
 * JIT program (the cost of entering a run). ns per call: fastest, 25th percentile and median chunk.
 * {@code java -cp bench/target/benchmarks.jar dev.bpf4j.bench.GuardedCopyTiming [workload]}.
 */
public final class GuardedCopyTiming {
    private GuardedCopyTiming() {}

    private static final int CHUNK = 200_000, ROUNDS = 120, WARMUP = 20;

    public static void main(String[] args) {
        Workload w = Workload.byId(args.length > 0 ? args[0] : "parse");
        Engine jit = EngineParams.require("jit");
        Program empty = new Program("empty", List.of(new Insn(0xb7, 0, 0, 0, 0), new Insn(0x95, 0, 0, 0, 0)));
        LoadOptions options = LoadOptions.defaults().withEntryArgs(2);
        try (DataBuffer d = new DataBuffer(w.input());
             Executable exe = Bpf.load(w.program(), jit, options);
             Executable nothing = Bpf.load(empty, jit, options);
             Target gcc = Target.gcc(GccLibrary.compile(), w, d, false)) {
            RunContext fits = d.context();
            RunContext refused = RunContext.builder().arg(1, d.address()).arg(2, d.length() + 1)
                    .region(new MemoryRegion("data", d.address(), d.length(), false)).build();
            long expect = gcc.run();
            if (exe.run(fits) != expect || exe.run(refused) != expect) throw new IllegalStateException(w.id() + ": the JIT disagrees with gcc");
            String[] names = {"jit, guarded copy", "jit, checked body", "gcc -O2", "jit, empty program"};
            List<List<Double>> times = new ArrayList<>();
            for (int k = 0; k < names.length; k++) times.add(new ArrayList<>());
            long sink = 0;
            for (int round = 0; round < ROUNDS; round++) {
                for (int k = 0; k < names.length; k++) {
                    long t0 = System.nanoTime();
                    for (int i = 0; i < CHUNK; i++) {
                        sink += k == 0 ? exe.run(fits) : k == 1 ? exe.run(refused) : k == 2 ? gcc.run() : nothing.run(fits);
                    }
                    if (round >= WARMUP) times.get(k).add((System.nanoTime() - t0) / (double) CHUNK);
                }
            }
            for (int k = 0; k < names.length; k++) {
                List<Double> t = times.get(k);
                Collections.sort(t);
                System.out.printf("%-20s fastest %6.1f  p25 %6.1f  median %6.1f ns/call%n", names[k], t.get(0), t.get(t.size() / 4), t.get(t.size() / 2));
            }
            if (sink == 0x5eed) System.out.println();
        }
    }
}
