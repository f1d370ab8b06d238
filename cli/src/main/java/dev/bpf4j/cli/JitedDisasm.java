package dev.bpf4j.cli;

import dev.bpf4j.jit.runtime.JitLoader;
import dev.bpf4j.cli.conformance.ConformanceHelpers;
import dev.bpf4j.cli.jited.JitedListing;
import dev.bpf4j.cli.jited.ObjdumpX86;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;

import java.util.List;

/**
 * {@code bpf4j disasm --jited}: compiles with the x86-64 JIT (without mapping the code) and lists
 * it interleaved with the BPF instructions; objdump disassembles when installed, else raw hex.
 */
final class JitedDisasm {
    private JitedDisasm() {}

    static String listing(Program program) {
        LoadOptions options = ConformanceHelpers.loadOptions().withHelpers(helpersFor(program));
        return JitedListing.render(program, new JitLoader().compile(program, options), ObjdumpX86.find());
    }

    /**
     * The conformance helpers plus a stand-in for every other helper the program calls: Java helpers
     * all share one bridge address, so the machine code is what a real load makes, and nothing runs.
     */
    static HelperRegistry helpersFor(Program program) {
        HelperRegistry.Builder b = ConformanceHelpers.HELPERS.toBuilder();
        List<Insn> insns = program.insns();
        for (int pc = 0; pc < insns.size(); pc++) {
            Insn i = insns.get(pc);
            if (i.opcode() == (Opcodes.JMP | Opcodes.CALL) && i.src() == Opcodes.CALL_HELPER && !ConformanceHelpers.HELPERS.contains(i.imm())
                    && !b.build().contains(i.imm())) {
                b.add(i.imm(), "helper_" + i.imm(), (call, r1, r2, r3, r4, r5) -> {
                    throw new IllegalStateException("disasm --jited never runs code");
                });
            }
            if (i.isLddw()) pc++;
        }
        return b.build();
    }
}
