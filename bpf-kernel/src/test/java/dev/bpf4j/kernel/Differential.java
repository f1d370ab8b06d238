package dev.bpf4j.kernel;

import dev.bpf4j.interp.InterpreterEngine;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.runtime.BpfException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * Runs one program on one engine the way the conformance suites do (r1 = a copy of {@code mem} or 0,
 * r2 = its length when entryArgs is 2) and records r0, the memory afterwards, or the error.
 */
final class Differential {
    private Differential() {}

    static final InterpreterEngine INTERP = new InterpreterEngine();
    static final KernelEngine KERNEL = new KernelEngine();

    record Outcome(long r0, byte[] mem, BpfException error) {
        boolean ok() { return error == null; }

        @Override public String toString() {
            return ok() ? String.format("r0=0x%x mem=%s", r0, mem == null ? "-" : HexFormat.of().formatHex(mem))
                        : error.getClass().getSimpleName() + ": " + error.getMessage();
        }

        /** Same r0 and same memory. */
        boolean sameResult(Outcome o) { return ok() && o.ok() && r0 == o.r0 && Arrays.equals(mem, o.mem); }
    }

    static Outcome run(Engine engine, Program p, LoadOptions options, byte[] mem, boolean writable) {
        long addr = mem == null ? 0 : NativeMemory.allocate(mem.length);
        try {
            RunContext.Builder b = RunContext.builder();
            if (mem != null) {
                NativeMemory.write(addr, mem, 0, mem.length);
                b.region(new MemoryRegion("mem", addr, mem.length, writable));
            }
            b.arg(1, addr);
            if (options.entryArgs() >= 2) b.arg(2, mem == null ? 0 : mem.length);
            try (Executable e = engine == INTERP ? Bpf.load(p, engine, options) : engine.load(p, options)) {
                long r0 = e.run(b.build());
                return new Outcome(r0, mem == null ? null : NativeMemory.read(addr, mem.length), null);
            } catch (BpfException e) {
                return new Outcome(0, null, e);
            }
        } finally {
            NativeMemory.free(addr);
        }
    }

    static Outcome interp(Program p, LoadOptions o, byte[] mem) { return run(INTERP, p, o, mem, true); }

    static Outcome kernel(Program p, LoadOptions o, byte[] mem) { return run(KERNEL, p, o, mem, true); }
}
