package dev.bpf4j.fuzz;

import dev.bpf4j.api.MapDump;
import dev.bpf4j.api.RunOptions;
import dev.bpf4j.api.RunResult;
import dev.bpf4j.kernel.KernelBpf;
import dev.bpf4j.kernel.KernelRejectedException;
import dev.bpf4j.kernel.object.KernelObject;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.runtime.BpfException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * A {@link FuzzCase} in the Linux kernel: conformance cases through {@code KernelEngine} (a syscall
 * program, the block mirrored in an array map), object cases through {@code KernelObject} (a tc program
 * test-run with its packet, then ctx_out and every map). Linux's verifier refusing it is
 * {@link Observation.Verdict#REJECTED} with the log's telling line; no verdict at all (bpf() refused, a
 * helper id that means another helper in Linux, a map Linux cannot create) is
 * {@link Observation.Verdict#SKIPPED} with the reason, which the campaign counts.
 */
final class KernelExecution {
    private KernelExecution() {}

    static EngineOutcome run(Engine kernel, FuzzCase c, LoadOptions options) {
        KernelBpf.Availability a = KernelBpf.availability();
        if (!a.available()) return skipped(kernel, "bpf() refused: " + a.reason());
        return c.isObject() ? object(kernel, c) : program(kernel, c, options);
    }

    private static EngineOutcome program(Engine kernel, FuzzCase c, LoadOptions options) {
        long start = System.nanoTime();
        Executable exe;
        try {
            exe = Bpf.load(c.program(), kernel, FuzzConventions.forCase(options, c.mem() != null));
        } catch (BpfException e) {
            return skipped(kernel, firstLine(e.getMessage()));
        }
        try (exe) {
            Observation first = Execution.runOnce(exe, c.mem(), 0);
            if (first.verdict() == Observation.Verdict.REJECTED) {
                String m = first.message();
                Observation o = m.startsWith(KernelRejectedException.class.getSimpleName()) ? Observation.rejected(lastTellingLine(m))
                        : Observation.skipped(firstLine(m));
                return new EngineOutcome(kernel.name(), o, null, System.nanoTime() - start);
            }
            Observation second = Execution.runOnce(exe, c.mem(), Execution.SECOND_RUN_SHIFT);
            return new EngineOutcome(kernel.name(), first, second, System.nanoTime() - start);
        }
    }

    private static EngineOutcome object(Engine kernel, FuzzCase c) {
        BpfObjectSpec spec = ObjectSpecs.of(c);
        long start = System.nanoTime();
        try (KernelObject k = KernelObject.load(spec, List.of(ObjectSpecs.PROGRAM))) {
            RunResult r = k.run(ObjectSpecs.PROGRAM, RunOptions.packet(c.mem()));
            List<String> state = new ArrayList<>();
            if (r.ctxOut() != null) state.add("ctx_out " + HexFormat.of().formatHex(r.ctxOut()));
            for (Map.Entry<String, List<MapDump.Entry>> e : k.dump().entrySet()) {
                state.add(MapLines.line(e.getKey(), e.getValue(), spec.map(e.getKey()).type().name().contains("PERCPU")));
            }
            Observation o = Observation.returned(r.retval(), r.dataOut()).withState(state);
            return new EngineOutcome(kernel.name(), o, null, System.nanoTime() - start);
        } catch (KernelRejectedException e) {
            Observation o = e.verifierLog().isBlank() ? Observation.skipped(e.errnoName() + " from BPF_PROG_LOAD with no verifier log")
                    : Observation.rejected(lastTellingLine(e.verifierLog()));
            return new EngineOutcome(kernel.name(), o, null, System.nanoTime() - start);
        } catch (BpfException e) {
            return skipped(kernel, firstLine(e.getMessage()));
        }
    }

    private static EngineOutcome skipped(Engine kernel, String why) { return new EngineOutcome(kernel.name(), Observation.skipped(why), null); }

    private static String firstLine(String s) { return s == null ? "" : s.lines().findFirst().orElse(""); }

    /** The verifier log's last line that says why (not the counts and timings it ends with). */
    static String lastTellingLine(String log) {
        String[] lines = log.strip().split("\n");
        for (int j = lines.length - 1; j >= 0; j--) {
            String l = lines[j].strip();
            if (!l.isEmpty() && !l.startsWith("processed ") && !l.startsWith("verification time") && !l.startsWith("stack depth")
                    && !l.startsWith("cur state:") && !l.startsWith("old state:")) return l;
        }
        return "(no log)";
    }
}
