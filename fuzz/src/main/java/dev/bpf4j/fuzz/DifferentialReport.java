package dev.bpf4j.fuzz;

import dev.bpf4j.asm.AsmPrinter;
import dev.bpf4j.isa.Insn;

import java.util.List;
import java.util.stream.Collectors;

/** What {@link DifferentialHarness} found for one program: every engine's outcome and the differences. */
public record DifferentialReport(FuzzCase fuzzCase, List<EngineOutcome> outcomes, List<Difference> differences) {
    public DifferentialReport {
        outcomes = List.copyOf(outcomes);
        differences = List.copyOf(differences);
    }

    public boolean agree() { return differences.isEmpty(); }

    /** The reference engine (bpf4j's verifier) refused the load. */
    public boolean rejected() { return !outcomes.isEmpty() && outcomes.get(0).verdict() == Observation.Verdict.REJECTED; }

    /** bpf4j's verdict against Linux's, or null when the kernel was not among the engines. */
    public KernelVerdict kernelVerdict() { return outcomes.isEmpty() ? null : KernelVerdict.of(outcomes.get(0), Oracle.kernel(outcomes)); }

    /** Why the kernel gave no verdict (bpf() refused, helper not comparable, ...), or null. */
    public String kernelSkipReason() {
        EngineOutcome k = outcomes.isEmpty() ? null : Oracle.kernel(outcomes);
        return k != null && k.verdict() == Observation.Verdict.SKIPPED ? k.first().message() : null;
    }

    public boolean crashed() { return differences.stream().anyMatch(d -> d.kind().startsWith("crash")); }

    /** The class of the first difference (what the minimiser keeps), or null when the engines agree. */
    public String mismatchClass() { return agree() ? null : differences.get(0).kind(); }

    /** A readable report: the program, each engine's outcome, each difference. */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        sb.append(agree() ? "engines agree" : "engines disagree").append(" on ").append(fuzzCase.origin()).append('\n');
        for (Difference d : differences) sb.append("  ").append(d).append('\n');
        for (EngineOutcome o : outcomes) {
            sb.append("  ").append(o.engine()).append(": ").append(o.first());
            if (!o.stable()) sb.append(" | second run: ").append(o.second());
            sb.append('\n');
        }
        sb.append(AsmPrinter.lines(fuzzCase.insns().toArray(new Insn[0])).stream()
                .map(l -> "    " + l).collect(Collectors.joining("\n"))).append('\n');
        return sb.toString();
    }
}
