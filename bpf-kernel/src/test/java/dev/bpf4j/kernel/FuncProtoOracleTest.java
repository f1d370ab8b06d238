package dev.bpf4j.kernel;

import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.object.AttachType;
import dev.bpf4j.object.ProgramType;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.EntryRegisters;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.HelperSpec;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.verifier.Validator;
import dev.bpf4j.verifier.VerifierException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The program type table's helper lists ({@code ProgramType.allowedHelpers}, the kernel's
 * {@code get_func_proto}) against Linux: every helper bpf4j registers is called from a program of every
 * type that has a list, in Linux (BPF_PROG_LOAD as root) and through bpf4j's verifier; the two must agree
 * on "program of this type cannot use helper", word for word. Skipped where bpf() is refused.
 */
class FuncProtoOracleTest {
    private static final String CANNOT = "program of this type cannot use helper ";
    /**
     * (type, helper) pairs upstream Linux offers that some builds do not: Linux 6.18.44 on these machines
     * refuses bpf_xdp_adjust_meta in XDP programs. bpf4j follows upstream; a build that refuses one is printed, not failed.
     */
    private static final Set<String> BUILD_DEPENDENT = Set.of("XDP bpf_xdp_adjust_meta#54");

    @BeforeEach void needsBpf() { KernelAssumptions.assumeBpf(); }

    @Test
    void bpf4jRefusesTheHelpersLinuxRefusesEachProgramType() {
        HelperRegistry registry = BpfHelpers.registry(MapTable.of(List.of()));
        List<String> differences = new ArrayList<>();
        int pairs = 0, refused = 0;
        for (ProgramType type : ProgramType.values()) {
            if (type.allowedHelpers() == null) continue;
            LoadOptions options = type.applyTo(LoadOptions.defaults().withEntry(EntryRegisters.CONTEXT).withHelpers(registry)
                    .withPacketContext(type.packetContext()), AttachType.NONE);
            for (HelperSpec h : registry.all()) {
                Insn[] code = {new Insn(Opcodes.JMP | Opcodes.CALL, 0, 0, 0, h.id()),
                        new Insn(Opcodes.ALU64 | Opcodes.MOV | Opcodes.K, 0, 0, 0, 0), new Insn(Opcodes.JMP | Opcodes.EXIT, 0, 0, 0, 0)};
                String linux = linuxRefusal(type, code);
                String mine = bpf4jRefusal(new Program("proto", Arrays.asList(code)), options);
                pairs++;
                if (linux != null) refused++;
                String pair = type + " " + h.name() + "#" + h.id();
                if (linux != null && mine == null && BUILD_DEPENDENT.contains(pair)) {
                    System.out.println("get_func_proto oracle: this kernel's build refuses " + pair + " (" + linux + "); upstream offers it");
                } else if (!Objects.equals(linux, mine)) {
                    differences.add(pair + ": Linux " + (linux == null ? "allows" : "'" + linux + "'")
                            + ", bpf4j " + (mine == null ? "allows" : "'" + mine + "'"));
                }
            }
        }
        System.out.printf("get_func_proto oracle: %d (type, helper) pairs, %d refused by Linux%n", pairs, refused);
        assertThat(differences).as("program-type-helpers.txt disagrees with Linux").isEmpty();
        assertThat(refused).as("the oracle refused nothing: it checks nothing").isPositive();
    }

    /** Linux's "cannot use helper" line for the program, or null when the helper is the type's. */
    private static String linuxRefusal(ProgramType type, Insn[] code) {
        int flags = type == ProgramType.SYSCALL ? ProgLoadRequest.BPF_F_SLEEPABLE : 0;
        try {
            BpfSyscall.close(BpfSyscall.progLoad(new ProgLoadRequest(type.id, 0, Insn.encodeAll(code), "GPL", "proto", flags, 0)));
            return null;
        } catch (KernelBpfException e) {
            for (String line : e.verifierLog().split("\n")) {
                if (line.startsWith(CANNOT)) return line.strip();
                if (line.contains("helper call is not allowed in probe")) return line.strip(); // fn->allowed: counted as refused
            }
            return null;
        }
    }

    private static String bpf4jRefusal(Program p, LoadOptions options) {
        try {
            Validator.validate(p, options);
            return null;
        } catch (VerifierException e) {
            return e.reason().startsWith(CANNOT) ? e.reason() : null;
        }
    }
}
