package dev.bpf4j.jit;

import dev.bpf4j.interp.InterpreterEngine;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;

import java.util.function.Supplier;

/** Runs one program on the interpreter and on the JIT and describes each outcome (r0 or error kind@pc, then memory). */
final class Both {
    private Both() {}

    static final Engine INTERP = new InterpreterEngine();

    /** r0 or the error kind and pc, then the bytes of {@code [mem, mem + len)} after the run. */
    static String outcome(Engine engine, Program p, LoadOptions o, RunContext ctx, long mem, int len, Runnable reset) {
        reset.run();
        StringBuilder s = new StringBuilder();
        try (Executable x = engine.load(p, o)) {
            s.append("r0=").append(Long.toHexString(x.run(ctx)));
        } catch (BpfRuntimeException e) {
            s.append(e.kind()).append('@').append(e.pc());
        }
        s.append(" mem=");
        for (byte b : NativeMemory.read(mem, len)) s.append(String.format("%02x", b & 0xff));
        return s.toString();
    }

    /** The interpreter's outcome and the JIT's, as {interp, jit}. */
    static String[] compare(Program p, LoadOptions o, Supplier<RunContext> ctx, long mem, int len, Runnable reset) {
        return new String[]{outcome(INTERP, p, o, ctx.get(), mem, len, reset), outcome(Jit.ENGINE, p, o, ctx.get(), mem, len, reset)};
    }
}
