package dev.bpf4j.stack;

import dev.bpf4j.interp.InterpreterEngine;
import dev.bpf4j.asm.Assembler;
import dev.bpf4j.jit.JitEngine;
import dev.bpf4j.jvm.JvmEngine;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.maps.StackTraceMap;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;

import java.util.List;

/** Every in-process engine (interpreter, JIT, JVM bytecode), a stack trace map with the stack helpers, and the two test programs. */
final class Engines implements AutoCloseable {
    static final List<Engine> ALL = List.of(new InterpreterEngine(), new JitEngine(), new JvmEngine());

    final MapTable maps;
    final StackTraceMap stacks;
    final HelperRegistry helpers;

    Engines(int depth, int maxEntries) {
        maps = MapTable.create(List.of(new MapDefinition("stacks", MapType.STACK_TRACE, 4, depth * 8, maxEntries, 0)));
        stacks = (StackTraceMap) maps.map(0);
        helpers = StackHelpers.register(HelperRegistry.builder(), maps).build();
    }

    /** {@code r0 = bpf_get_stackid(ctx, &stacks, flags)}. */
    Program getStackId(long flags) {
        return Assembler.assembleProgram("stackid", String.join("\n",
                "lddw %r2, " + maps.handle(0),
                "lddw %r3, " + flags,
                "call 27",
                "exit"));
    }

    /** {@code r0 = bpf_get_stack(ctx, ctx, size, flags)}: the trace goes into the ctx buffer. */
    static Program getStack(int size, long flags) {
        return Assembler.assembleProgram("stack", String.join("\n",
                "mov %r2, %r1",
                "mov %r3, " + size,
                "lddw %r4, " + flags,
                "call 67",
                "exit"));
    }

    Executable load(Engine e, Program p) { return e.load(p, LoadOptions.defaults().withHelpers(helpers)); }

    /** Loads, runs once and closes; one call site for every engine. */
    long run(Engine e, Program p, RunContext ctx) {
        try (Executable x = load(e, p)) {
            return x.run(ctx);
        }
    }

    @Override public void close() { maps.close(); }
}
