package dev.bpf4j.kernel;

import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.EntryRegisters;
import dev.bpf4j.runtime.LoadOptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Linux's whole-program call walk (check_max_stack_depth) against bpf4j's on the same programs,
 * loaded as socket filters: same verdict, and bpf4j's reason starts with Linux's words. The same
 * programs under the conformance suites' entry follow RFC 9669 (recursion, a frame per call).
 */
class CallStackKernelTest {
    @BeforeEach void needsBpf() { KernelAssumptions.assumeBpf(); }

    private static final Map<String, String> PROGRAMS = new LinkedHashMap<>();
    static {
        PROGRAMS.put("two frames of 496 + 8 bytes", "stdw [r10-496], 1\ncall local f\nmov r0, 0\nexit\nf:\nstdw [r10-8], 1\nmov r0, 0\nexit");
        PROGRAMS.put("two frames of 504 + 8 bytes", "stdw [r10-504], 1\ncall local f\nmov r0, 0\nexit\nf:\nstdw [r10-8], 1\nmov r0, 0\nexit");
        PROGRAMS.put("two frames of 32 + 512 bytes", "stdw [r10-32], 1\ncall local f\nmov r0, 0\nexit\nf:\nstdw [r10-512], 1\nmov r0, 0\nexit");
        PROGRAMS.put("a callee never entered", "stdw [r10-512], 1\nmov r0, 0\njeq r0, 0, +1\ncall local f\nmov r0, 0\nexit\n"
                + "f:\nstdw [r10-8], 1\nmov r0, 0\nexit");
        PROGRAMS.put("recursion no path takes", "mov r0, 0\njeq r0, 0, +1\ncall local -3\nexit");
        PROGRAMS.put("the caller's frame through an argument", "mov r1, r10\nadd r1, -512\ncall local f\nmov r0, 0\nexit\n"
                + "f:\nstdw [r1+0], 1\nmov r0, 0\nexit");
        PROGRAMS.put("factorial (call-local-recursion-factorial)", "mov r1, 5\ncall local fact\nexit\nfact:\nmov r0, 1\n"
                + "jeq r1, 0, done\nmov r6, r1\nsub r1, 1\ncall local fact\nmul r0, r6\ndone:\nexit");
        StringBuilder chain = new StringBuilder();
        for (int i = 0; i < 7; i++) chain.append("call local f").append(i).append("\nexit\nf").append(i).append(":\n");
        PROGRAMS.put("eight frames", chain + "mov r0, 0\nexit");
        PROGRAMS.put("a ninth frame no path enters", chain + "mov r0, 0\njeq r0, 0, +1\ncall local g\nexit\ng:\nmov r0, 0\nexit");
    }

    @Test void socketFiltersGetLinuxsVerdict() {
        int compared = 0;
        for (var e : PROGRAMS.entrySet()) {
            Program p = KernelOracle.asm("stack", e.getValue());
            String linux = KernelOracle.linux(ProgLoadRequest.BPF_PROG_TYPE_SOCKET_FILTER, p);
            String ours = KernelOracle.bpf4j(p, KernelOracle.SOCKET_FILTER);
            System.out.printf("%-45s Linux: %-50s bpf4j: %s%n", e.getKey(), linux.isEmpty() ? "accepts" : linux, ours.isEmpty() ? "accepts" : ours);
            assertThat(ours.isEmpty()).as("%s: bpf4j accepts exactly when Linux does (Linux: %s, bpf4j: %s)", e.getKey(), linux, ours)
                    .isEqualTo(linux.isEmpty());
            if (!linux.isEmpty()) assertThat(ours).as(e.getKey()).startsWith(linux);
            compared++;
        }
        assertThat(compared).isEqualTo(PROGRAMS.size());
    }

    @Test void theConformanceEntryKeepsTheRfcModel() {
        LoadOptions block = LoadOptions.defaults().withEntry(EntryRegisters.MEMORY_BLOCK);
        for (String name : new String[]{"two frames of 504 + 8 bytes", "two frames of 32 + 512 bytes", "recursion no path takes",
                "factorial (call-local-recursion-factorial)", "a ninth frame no path enters"}) {
            assertThat(KernelOracle.bpf4j(KernelOracle.asm("rfc", PROGRAMS.get(name)), block)).as(name).isEmpty();
        }
    }
}
