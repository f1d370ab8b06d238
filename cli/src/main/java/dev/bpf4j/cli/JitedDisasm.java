package dev.bpf4j.cli;

import dev.bpf4j.cli.conformance.ConformanceHelpers;
import dev.bpf4j.cli.jited.JitedListing;
import dev.bpf4j.cli.jited.ObjdumpX86;
import dev.bpf4j.jit.JitEngine;
import dev.bpf4j.program.Program;

/**
 * {@code bpf4j disasm --jited}: compiles with the x86-64 JIT (without mapping the code) and lists
 * it interleaved with the BPF instructions; objdump disassembles when installed, else raw hex.
 */
final class JitedDisasm {
    private JitedDisasm() {}

    static String listing(Program program) {
        return JitedListing.render(program, new JitEngine().compile(program, ConformanceHelpers.loadOptions()), ObjdumpX86.find());
    }
}
