package dev.bpf4j.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.bpf4j.api.PerCpuValues;
import dev.bpf4j.api.MapDump;
import dev.bpf4j.api.RunResult;
import dev.bpf4j.btf.MapBtf;
import dev.bpf4j.kernel.SyscallErrno;
import dev.bpf4j.kernel.KernelBpfException;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * What {@code bpf4j run OBJ.o} prints for one engine ({@code retval}, {@code data_out}, {@code ctx_out},
 * with {@code --repeat} the average duration of a run as {@code bpftool prog run} prints it, one
 * bpftool-style JSON line per map) and, line for line, what {@code --engine all} compares: the same
 * text, except that a per-CPU map is compared by the sum of its CPUs' values — which CPU's slot a run
 * touches depends on where the thread (or the kernel's test run) was scheduled, not on the engine —
 * and without the duration, which is a measurement.
 */
record EngineRun(List<String> lines, List<String> compared, JsonObject json) {
    static final class Builder {
        private final List<String> lines = new ArrayList<>();
        private final List<String> compared = new ArrayList<>();
        private final JsonObject json = new JsonObject();
        private final JsonArray maps = new JsonArray();

        Builder result(RunResult r) { return result(r, false); }

        /** The result; {@code duration}: also print (not compare) the average duration of a run. */
        Builder result(RunResult r, boolean duration) {
            HexFormat hex = HexFormat.of();
            line("retval: " + r.retval());
            json.addProperty("retval", r.retval());
            if (r.dataOut() != null) line("data_out: " + hex.formatHex(r.dataOut()));
            if (r.dataOut() != null) json.addProperty("data_out", hex.formatHex(r.dataOut()));
            if (r.ctxOut() != null) line("ctx_out: " + hex.formatHex(r.ctxOut()));
            if (r.ctxOut() != null) json.addProperty("ctx_out", hex.formatHex(r.ctxOut()));
            if (duration) lines.add("duration (average): " + r.averageDurationNs() + " ns");
            if (duration) json.addProperty("duration_ns", r.averageDurationNs());
            return this;
        }

        Builder map(String name, boolean percpu, List<MapDump.Entry> entries) { return map(name, percpu, entries, null); }

        /** One map's dump; {@code types} (may be null) adds bpftool's {@code formatted} values. */
        Builder map(String name, boolean percpu, List<MapDump.Entry> entries, MapBtf types) {
            lines.add(MapDump.json(name, percpu, entries, types));
            maps.add(Json.parse(lines.get(lines.size() - 1)));
            if (!percpu) {
                compared.add(lines.get(lines.size() - 1));
            } else {
                List<MapDump.Entry> summed = entries.stream().map(e -> new MapDump.Entry(e.key(), List.of(PerCpuValues.sum(e.values())))).toList();
                compared.add("summed over CPUs: " + MapDump.json(name, false, summed));
            }
            return this;
        }

        private void line(String s) {
            lines.add(s);
            compared.add(s);
        }

        EngineRun build() {
            if (!maps.isEmpty()) json.add("maps", maps);
            return new EngineRun(List.copyOf(lines), List.copyOf(compared), json);
        }
    }

    /**
     * A run that ended in {@code e}. Its message is printed; what is compared is the message, except
     * for input the test run refuses: bpf4j's engines say why ({@link IllegalArgumentException}),
     * the kernel answers {@code BPF_PROG_TEST_RUN} with {@code EINVAL} — the same verdict.
     */
    static EngineRun error(RuntimeException e) {
        boolean kernelRefusedInput = e instanceof KernelBpfException k && k.errno() == SyscallErrno.EINVAL
                && k.command().contains("BPF_PROG_TEST_RUN");
        String compared = e instanceof IllegalArgumentException || kernelRefusedInput
                ? "error: the test run refuses this input (EINVAL)" : "error: " + e.getMessage();
        return new EngineRun(List.of("error: " + e.getMessage()), List.of(compared), Json.object("error", e.getMessage()));
    }

}
