package dev.bpf4j.kernel;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Precision against Linux: programs whose paths meet differing only in a scalar nothing later reads (Linux
 * accepts them without marking it precise; bpf4j's PrecisionLiveness ignores it), and the same joins where the
 * scalar does matter later (a stack offset, a spill and fill, a branch, a subprogram's argument), which both
 * refuse. Each is loaded as a socket filter into Linux and through bpf4j's verifier: the same verdict. The
 * bpf-core unit tests (PrecisionPruningTest) hold bpf4j's pcs and words for the same joins.
 */
class PrecisionPruningKernelTest {
    @BeforeEach void needsBpf() { KernelAssumptions.assumeBpf(); }

    /** r1 = skb->len, r2 = 8 on the first path to the join and -8 on the second. */
    private static final String JOIN = "ldxw r1, [r1+0]\nmov r2, 8\njgt r1, 5, +1\nmov r2, -8\n";

    static final Map<String, String> PROGRAMS = new LinkedHashMap<>();
    static {
        StringBuilder diamonds = new StringBuilder("ldxw r1, [r1+0]\nmov r2, 0\n");
        for (int i = 0; i < 20; i++) {
            diamonds.append("mov r3, r1\nrsh r3, ").append(i).append("\nand r3, 1\nlsh r2, 1\njeq r3, 0, +1\nor r2, 1\n");
        }
        PROGRAMS.put("20 diamonds shifting bits into a dead r2", diamonds.append("mov r0, r3\nexit").toString());
        PROGRAMS.put("a dead value at the join", JOIN + "mov r2, 0\nmov r0, 0\nexit");
        PROGRAMS.put("joined value as a stack offset", JOIN + "mov r3, r10\nadd r3, r2\nstdw [r3-8], 1\nmov r0, 0\nexit");
        PROGRAMS.put("joined value spilled, filled, a stack offset",
                JOIN + "stxdw [r10-16], r2\nmov r2, 0\nldxdw r4, [r10-16]\nmov r3, r10\nadd r3, r4\nstdw [r3-8], 1\nmov r0, 0\nexit");
        PROGRAMS.put("joined value decides whether r0 is set", JOIN + "jeq r2, 8, +1\nmov r0, 0\nexit");
        PROGRAMS.put("joined value as a subprogram's stack offset",
                JOIN + "mov r1, r2\ncall local f\nmov r0, 0\nexit\nf:\nmov r3, r10\nadd r3, r1\nstdw [r3-8], 1\nmov r0, 0\nexit");
    }

    @Test void socketFiltersGetLinuxsVerdict() { KernelOracle.sameSocketFilterVerdicts(PROGRAMS); }
}
