package dev.bpf4j.fuzz;

import dev.bpf4j.isa.Insn;

import java.util.List;

/** What the Jazzer harnesses demand of a program they produced: it runs the same on the interpreter and the JIT, or both refuse it. */
final class HarnessChecks {
    private HarnessChecks() {}

    private static final DifferentialHarness ENGINES = DifferentialHarness.inProcess();

    static void runsAlike(String origin, List<Insn> insns, byte[] mem) {
        if (insns.isEmpty()) return;
        DifferentialReport r = ENGINES.run(new FuzzCase(origin, insns, mem));
        if (!r.agree()) throw new AssertionError(r.describe());
    }

    /** A refusal must say why. */
    static void namesAReason(RuntimeException e) {
        if (e.getMessage() == null || e.getMessage().isBlank()) throw new AssertionError("an error without a reason", e);
    }
}
