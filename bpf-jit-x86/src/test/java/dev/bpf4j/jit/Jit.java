package dev.bpf4j.jit;

import dev.bpf4j.jit.runtime.JitLoader;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;

/** Test conveniences: run a program once, dump registers through a helper. */
final class Jit {
    private Jit() {}

    static final JitEngine ENGINE = new JitEngine();
    /** The engine's internal side, for tests that read the compiled code. */
    static final JitLoader LOADER = new JitLoader();
    static final int DUMP = 99;

    static long run(Program p) { return run(p, LoadOptions.defaults(), RunContext.builder().build()); }

    static long run(Program p, LoadOptions o, RunContext c) {
        try (var x = ENGINE.load(p, o)) {
            return x.run(c);
        }
    }

    /** Helper 99: copies 10 longs from r1 into {@code out}. */
    static HelperRegistry dumpHelper(long[] out) {
        return HelperRegistry.builder().add(DUMP, "dump", (call, r1, r2, r3, r4, r5) -> {
            for (int i = 0; i < out.length; i++) out[i] = NativeMemory.getLong(r1 + 8L * i);
            return 0;
        }).build();
    }
}
