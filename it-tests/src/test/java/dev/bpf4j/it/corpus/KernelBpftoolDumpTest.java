package dev.bpf4j.it.corpus;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.MapDump;
import dev.bpf4j.api.ObjectLoadOptions;
import dev.bpf4j.api.RunOptions;
import dev.bpf4j.btf.BtfJson;
import dev.bpf4j.btf.BtfValues;
import dev.bpf4j.btf.MapBtf;
import dev.bpf4j.kernel.BpfSyscall;
import dev.bpf4j.kernel.object.KernelObject;
import dev.bpf4j.maps.PerCpuSum;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.object.MapSpec;
import dev.bpf4j.unwind.ExternalTool;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * bpftool is the oracle for {@code formatted}: corpus/btf_values.o loaded into Linux, run, then every
 * map dumped by {@code bpftool -j map dump id N} and by bpf4j's {@link MapDump#json} with the map's BTF,
 * compared entry by entry (whitespace aside). The same runs on the interpreter and the JIT give the
 * same formatted dumps as the kernel (per-CPU maps by their sums: which CPU ran is not the engine's choice).
 * Skips, saying why, without bpf4j-kernel on the class path, bpf() or bpftool.
 */
class KernelBpftoolDumpTest {
    static final List<RunOptions> RUNS = List.of(
            TypedValuesTest.args(0x0a000001, 80, 6, 2, 20, -100),
            TypedValuesTest.args(0x0a000001, 80, 6, 1, 500, 2047),
            TypedValuesTest.args(0xc0a80001, 53, 17, 3, 100, -2048),
            TypedValuesTest.args(-1, 65535, 255, 7, 0xffffffffL, 0));

    @Test void formattedDumpsMatchBpftoolAndTheEnginesMatchTheKernel() {
        assumeTrue(KernelSide.onClassPath(), "bpf4j-kernel is not on this surefire execution's class path (see it-tests/pom.xml)");
        String refused = KernelSide.unavailableReason();
        assumeTrue(refused == null, () -> "bpf() is not permitted here: " + refused);
        assumeTrue(ExternalTool.tryRun(null, Duration.ofSeconds(30), List.of("bpftool", "version")).map(ExternalTool.Result::ok).orElse(false),
                "bpftool is not installed: formatted map dumps not compared with it");
        BpfObjectSpec spec = TypedValuesTest.SPEC;
        List<String> kernel = new ArrayList<>();
        try (KernelObject k = KernelObject.load(spec, List.of("btf_update"))) {
            assertThat(k.btfProblem()).isNull();
            Object kernelObject = k; // a lambda parameter of type KernelObject breaks the run without bpf4j-kernel
            pinned(() -> { for (RunOptions o : RUNS) ((KernelObject) kernelObject).run("btf_update", o); });
            var dump = k.dump();
            for (MapSpec m : spec.maps()) {
                MapBtf types = MapBtf.of(spec.btf(), m.keyTypeId(), m.valueTypeId());
                boolean percpu = m.type() == dev.bpf4j.maps.MapType.PERCPU_ARRAY;
                String ours = MapDump.json(m.name(), percpu, dump.get(m.name()), types);
                int id = BpfSyscall.mapId(k.mapFd(m.name()));
                ExternalTool.Result r = ExternalTool.exec(null, Duration.ofMinutes(1), List.of("bpftool", "-j", "map", "dump", "id", String.valueOf(id)));
                assertThat(r.ok()).as(r.output()).isTrue();
                String theirs = r.output().substring(r.output().indexOf('['));
                List<String> mine = elements(compact(ours.substring(ours.indexOf("\"entries\": [") + 11, ours.length() - 1)));
                assertThat(mine).as("map %s: bpf4j vs bpftool", m.name()).isNotEmpty().isEqualTo(elements(compact(theirs)));
                assertThat(ours).as(m.name()).contains("\"formatted\"");
                kernel.add(summary(m, percpu, dump.get(m.name()), types));
            }
        }
        for (String engine : List.of("interp", "jit")) {
            List<String> mine = new ArrayList<>();
            try (BpfObject obj = BpfObject.open(TypedValuesTest.OBJ).load(ObjectLoadOptions.engine(engine))) {
                pinned(() -> { for (RunOptions o : RUNS) obj.program("btf_update").run(o); });
                for (MapSpec m : spec.maps()) {
                    mine.add(summary(m, obj.map(m.name()).type().isPercpu(), MapDump.entries(obj.map(m.name())), obj.mapBtf(m.name())));
                }
            }
            assertThat(mine).as(engine + " vs kernel").isEqualTo(kernel);
        }
    }

    /**
     * The four runs on one CPU: a per-CPU map's {@code last} summed over CPUs depends on how the runs
     * were spread (a thread that migrated between runs under load gave 499 where Linux's gave -1).
     */
    private static void pinned(Runnable runs) {
        dev.bpf4j.maps.CpuPin.onThisCpu(() -> { runs.run(); return null; });
    }

    /** A map's formatted dump; a per-CPU map's entries as the sums of their CPUs' values. */
    private static String summary(MapSpec m, boolean percpu, List<MapDump.Entry> entries, MapBtf types) {
        if (!percpu) return MapDump.json(m.name(), false, entries, types);
        StringBuilder b = new StringBuilder(m.name());
        for (MapDump.Entry e : entries) {
            b.append(' ');
            BtfJson.write(PerCpuSum.sum(e.values().stream().map(v -> BtfValues.decode(types.btf(), types.valueTypeId(), v, 0)).toList()), b);
        }
        return b.toString();
    }

    /** The JSON without whitespace outside strings. */
    static String compact(String json) {
        StringBuilder b = new StringBuilder();
        boolean inString = false;
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            if (inString) {
                b.append(c);
                if (c == '\\') b.append(json.charAt(++i));
                else if (c == '"') inString = false;
            } else if (c == '"') {
                inString = true;
                b.append(c);
            } else if (!Character.isWhitespace(c)) {
                b.append(c);
            }
        }
        return b.toString();
    }

    /** The elements of a compact top-level JSON array, sorted (bpftool lists hash entries in bucket order, bpf4j by key). */
    static List<String> elements(String array) {
        List<String> out = new ArrayList<>();
        int depth = 0, start = 1;
        boolean inString = false;
        for (int i = 0; i < array.length(); i++) {
            char c = array.charAt(i);
            if (inString) {
                if (c == '\\') i++;
                else if (c == '"') inString = false;
                continue;
            }
            if (c == '"') inString = true;
            else if (c == '[' || c == '{') depth++;
            else if (c == ']' || c == '}') {
                depth--;
                if (depth == 0 && i > start) out.add(array.substring(start, i));
            } else if (c == ',' && depth == 1) {
                out.add(array.substring(start, i));
                start = i + 1;
            }
        }
        out.sort(null);
        return out;
    }
}
