package dev.bpf4j.interp;

import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;

/** Loads programs into the interpreter and runs them, for tests. */
final class Runner {
    private Runner() {}

    static final InterpreterEngine ENGINE = new InterpreterEngine();

    static Executable load(Program p) { return ENGINE.load(p, LoadOptions.defaults()); }

    static Executable load(Program p, HelperRegistry helpers) {
        return ENGINE.load(p, LoadOptions.defaults().withHelpers(helpers));
    }

    static long run(Program p) { return run(p, RunContext.builder().build()); }

    static long run(Program p, RunContext ctx) {
        try (Executable e = load(p)) {
            return e.run(ctx);
        }
    }
}
