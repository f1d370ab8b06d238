package dev.bpf4j.it.corpus;

import dev.bpf4j.kernel.KernelRejectedException;
import dev.bpf4j.kernel.object.KernelObject;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.runtime.BpfException;

import java.util.List;

/**
 * Linux's verdict on loading one program of an object ({@link KernelObject}, privileged
 * {@code BPF_PROG_LOAD}). Like {@link KernelSide} it touches bpf4j-kernel, so callers ask
 * {@link KernelSide#onClassPath()} first.
 */
final class KernelVerdict {
    private KernelVerdict() {}

    /**
     * "" when {@code program} of {@code spec} loads (with the programs its prog arrays name),
     * "rejected: LINE" (the verifier log's last telling line) when Linux's verifier refuses it, or
     * "not comparable: WHY" when the load fails before the verifier decides.
     */
    static String of(BpfObjectSpec spec, String program) {
        try (KernelObject k = KernelObject.load(spec, List.of(program))) {
            return "";
        } catch (KernelRejectedException e) {
            // no log: the load failed before the verifier ran (an attach target or program type this kernel refuses)
            if (e.verifierLog().isBlank()) return "not comparable: " + e.errnoName() + " from BPF_PROG_LOAD with no verifier log";
            return "rejected: " + (e.program().equals(program) ? "" : "(tail-call target " + e.program() + ") ") + lastLine(e.verifierLog());
        } catch (BpfException e) {
            return "not comparable: " + e.getMessage().lines().findFirst().orElse("");
        }
    }

    /** The verifier log's last line that says why (not the counts and timings it ends with). */
    static String lastLine(String log) {
        String[] lines = log.strip().split("\n");
        for (int j = lines.length - 1; j >= 0; j--) {
            String l = lines[j].strip();
            if (!l.isEmpty() && !l.startsWith("processed ") && !l.startsWith("verification time")
                    && !l.startsWith("stack depth") && !l.startsWith("cur state:") && !l.startsWith("old state:")) return l;
        }
        return "(no log)";
    }
}
