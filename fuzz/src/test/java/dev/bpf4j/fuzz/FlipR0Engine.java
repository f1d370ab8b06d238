package dev.bpf4j.fuzz;

import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;

/** A deliberately broken engine for the tests: another engine, except that r0's low bit flips in programs holding {@code opcode}. */
final class FlipR0Engine implements Engine {
    private final Engine inner;
    private final int opcode;

    FlipR0Engine(Engine inner, int opcode) {
        this.inner = inner;
        this.opcode = opcode;
    }

    @Override public String name() { return "flip-" + inner.name(); }

    @Override public Executable load(Program program, LoadOptions options) {
        Executable e = inner.load(program, options);
        boolean broken = program.insns().stream().anyMatch(i -> i.opcode() == opcode);
        return new Executable() {
            @Override public Program program() { return e.program(); }
            @Override public long run(RunContext context) { return broken ? e.run(context) ^ 1 : e.run(context); }
            @Override public void close() { e.close(); }
        };
    }
}
