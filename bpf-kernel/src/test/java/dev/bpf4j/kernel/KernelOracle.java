package dev.bpf4j.kernel;

import dev.bpf4j.asm.Assembler;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.EntryRegisters;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.PacketContext;
import dev.bpf4j.verifier.Validator;
import dev.bpf4j.verifier.VerifierException;

/**
 * One program's verdict from Linux's verifier (privileged BPF_PROG_LOAD of a given program type)
 * and from bpf4j's, for tests that compare the two instruction by instruction.
 */
final class KernelOracle {
    private KernelOracle() {}

    /** A socket filter: r1 is an sk_buff; bpf4j loads it as a kernel context with the skb's packet fields. */
    static final LoadOptions SOCKET_FILTER = LoadOptions.defaults().withEntry(EntryRegisters.CONTEXT).withPacketContext(PacketContext.SK_BUFF);

    static Program asm(String name, String text) { return new Program(name, Assembler.assemble(text)); }

    /** "" when Linux loads {@code p} as {@code progType}, else the last line of its verifier log. */
    static String linux(int progType, Program p) {
        byte[] bytes = Insn.encodeAll(p.toArray());
        try (KernelProgram k = KernelProgram.load(ProgLoadRequest.of(progType, "bpf4j_oracle", bytes))) {
            return "";
        } catch (KernelBpfException e) {
            return ConformanceKernelTest.lastLine(e.verifierLog());
        }
    }

    /** "" when bpf4j's verifier accepts {@code p}, else its reason (without the pc). */
    static String bpf4j(Program p, LoadOptions o) {
        try {
            Validator.validate(p, o);
            return "";
        } catch (VerifierException e) {
            return e.reason();
        }
    }

    /** bpf4j's pc for a refusal, -1 when it accepts. */
    static int bpf4jPc(Program p, LoadOptions o) {
        try {
            Validator.validate(p, o);
            return -1;
        } catch (VerifierException e) {
            return e.pc();
        }
    }
}
