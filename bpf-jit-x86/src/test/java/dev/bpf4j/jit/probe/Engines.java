package dev.bpf4j.jit.probe;

import dev.bpf4j.interp.InterpreterEngine;
import dev.bpf4j.jit.JitEngine;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;

import java.util.List;

/** The ways a probe can run a program: JIT called directly, JIT through the upcall, the interpreter. */
enum Engines {
    JIT_DIRECT, JIT_UPCALL, INTERP;

    Executable load(Program p, LoadOptions options) {
        return Bpf.load(p, this == INTERP ? new InterpreterEngine() : new JitEngine(), options);
    }

    ProbeProgram probe(Executable x, List<MemoryRegion> regions) {
        return this == JIT_UPCALL ? ProbeProgram.upcall(x, regions) : ProbeProgram.of(x, regions);
    }
}
