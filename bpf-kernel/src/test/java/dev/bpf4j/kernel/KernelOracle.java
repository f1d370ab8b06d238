package dev.bpf4j.kernel;

import dev.bpf4j.asm.Assembler;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.EntryRegisters;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.PacketContext;
import dev.bpf4j.verifier.Validator;
import dev.bpf4j.verifier.VerifierException;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

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

    private record Verdicts(String name, String linux, String bpf4j) {}

    /**
     * Loads each program (name → assembly) as a socket filter into Linux and through bpf4j's verifier,
     * prints every pair of verdicts (the table a failure is read against), then demands that bpf4j
     * accepts exactly where Linux does.
     */
    static void sameSocketFilterVerdicts(Map<String, String> programs) {
        List<Verdicts> all = new ArrayList<>();
        for (var e : programs.entrySet()) {
            Program p = asm("precision", e.getValue());
            Verdicts v = new Verdicts(e.getKey(), linux(ProgLoadRequest.BPF_PROG_TYPE_SOCKET_FILTER, p), bpf4j(p, SOCKET_FILTER));
            System.out.printf("%-60s Linux: %-70s bpf4j: %s (pc %d)%n", v.name(), v.linux().isEmpty() ? "accepts" : v.linux(),
                    v.bpf4j().isEmpty() ? "accepts" : v.bpf4j(), bpf4jPc(p, SOCKET_FILTER));
            all.add(v);
        }
        for (Verdicts v : all) {
            assertThat(v.bpf4j().isEmpty()).as("%s: bpf4j accepts exactly when Linux does (Linux: %s, bpf4j: %s)", v.name(), v.linux(), v.bpf4j())
                    .isEqualTo(v.linux().isEmpty());
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
