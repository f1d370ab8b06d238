package dev.bpf4j.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * Prints, as one JSON object, what bench/run.sh needs besides JMH's timings: the engines on the
 * class path, whether gcc works, and per workload the agreed result and the number of BPF
 * instructions the interpreter dispatches for it (from {@link StepCounter}, whose r0 must match the
 * engines'). Exits non-zero when the engines disagree.
 */
public final class WorkloadFacts {
    private WorkloadFacts() {}

    public static void main(String[] args) {
        boolean gccOk = GccLibrary.gccAvailable();
        GccLibrary gcc = gccOk ? GccLibrary.compile() : null;
        List<String> entries = new ArrayList<>();
        for (Workload w : Workload.values()) {
            long result = Agreement.require(w, gcc);
            try (DataBuffer data = new DataBuffer(w.input())) {
                StepCounter.Steps steps = new StepCounter(w.program()).run(data.address(), data.length());
                entries.add(String.format("\"%s\": {\"result\": \"0x%016x\", \"insns\": %d, \"input_bytes\": %d}",
                        w.id(), result, steps.count(), data.length()));
            }
        }
        List<String> engines = new ArrayList<>();
        for (String e : EngineParams.names()) engines.add('"' + e + '"');
        System.out.println("{\"engines\": [" + String.join(", ", engines) + "], \"gcc\": " + gccOk
                + ", \"gcc_flags\": \"" + String.join(" ", GccLibrary.FLAGS) + "\""
                + ", \"workloads\": {" + String.join(", ", entries) + "}}");
    }
}
