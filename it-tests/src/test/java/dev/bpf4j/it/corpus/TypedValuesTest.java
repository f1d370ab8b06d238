package dev.bpf4j.it.corpus;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.MapDump;
import dev.bpf4j.api.ObjectLoadOptions;
import dev.bpf4j.api.OpenObject;
import dev.bpf4j.api.RunOptions;
import dev.bpf4j.api.Variable;
import dev.bpf4j.btf.BtfJson;
import dev.bpf4j.btf.BtfKind;
import dev.bpf4j.btf.BtfValue;
import dev.bpf4j.btf.BtfValues;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.maps.BpfMapException;
import dev.bpf4j.maps.Cpus;
import dev.bpf4j.maps.MapView;
import dev.bpf4j.maps.TypedMap;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.runtime.BpfException;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Typed maps and global variables by BTF on corpus/btf_values.o, on the interpreter and the JIT:
 * values written from Java are what the program reads, what the program writes is what Java reads,
 * and both engines end in the same state. The kernel side is KernelBpftoolDumpTest.
 */
class TypedValuesTest {
    static final Path OBJ = CorpusCase.DIR.resolve("btf_values.o");
    static final BpfObjectSpec SPEC = BpfObjectSpec.read(OBJ);

    record FlowKey(int addr, short port, byte proto, byte pad) {}

    enum Level { LEVEL_LOW, LEVEL_MID, LEVEL_HIGH }

    record U(int word, byte[] b) {}

    record Stats(long packets, long bytes, int flags, int kind, int delta, Level lvl, String name, U u, int lo, int hi,
                 String pr, boolean seen, byte tiny, int[] ports) {}

    record Cfg(short min, short max, String tag) {}

    /** The program's {@code struct args}, encoded by its own BTF type. */
    static RunOptions args(int addr, int port, int proto, int op, long n, int delta) {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("addr", addr);
        a.put("port", port);
        a.put("proto", proto);
        a.put("op", op);
        a.put("n", n);
        a.put("delta", delta);
        return RunOptions.defaults().withCtxIn(BtfValues.encode(SPEC.btf(), SPEC.btf().find(BtfKind.STRUCT, "args"), a, "args"));
    }

    static OpenObject open() { return BpfObject.open(OBJ); }

    /** Everything an engine's object holds after the scenario, as text: retvals, every variable, every map with BTF. */
    static String scenario(String engine) {
        List<String> out = new ArrayList<>();
        try (BpfObject obj = open().variable("limit", 10).variable("cfg", new Cfg((short) 2, (short) 500, "zq"))
                .load(ObjectLoadOptions.engine(engine))) {
            obj.variable("ratio").set(7);
            obj.variable("label").set("world");
            obj.variable("default_proto").set("PROTO_TCP");
            obj.variable("offset").set(-3);
            out.add("r1=" + obj.program("btf_update").run(args(0x0a000001, 80, 6, 2, 20, -100)).retval());
            Variable total = obj.variable("total");
            assertThat(total.getLong()).isEqualTo(20 * 7);
            assertThat(obj.variable("over_limit").getLong()).isEqualTo(1);
            total.set(1000L);
            out.add("r2=" + obj.program("btf_update").run(args(0x0a000001, 80, 6, 1, 5, 2047)).retval());
            assertThat(total.getLong()).isEqualTo(1000 + 5 * 7);
            assertThat(obj.variable("big").get().asLong()).isEqualTo(20 << 8 | 5);

            Stats s = obj.variable("last").get(Stats.class);
            assertThat(s.packets()).isEqualTo(2);
            assertThat(s.bytes()).isEqualTo(25);
            assertThat(s.flags()).isEqualTo(1);
            assertThat(s.kind()).isEqualTo(2);
            assertThat(s.delta()).isEqualTo(2047);
            assertThat(s.lvl()).isEqualTo(Level.LEVEL_LOW); // 5 < limit 10 (set before load)
            assertThat(s.name()).isEqualTo("world");
            assertThat(s.u().word()).isEqualTo(5);
            assertThat(s.lo()).isEqualTo(80);
            assertThat(s.hi()).isEqualTo(500); // cfg.max, set before load
            assertThat(s.pr()).isEqualTo("PROTO_TCP");
            assertThat(s.seen()).isTrue();
            assertThat(s.tiny()).isEqualTo((byte) -3);
            assertThat(s.ports()).containsExactly(80, 2);
            for (Variable v : obj.variables()) out.add(v.name() + " " + v.type() + " " + v.section() + " = " + BtfJson.write(v.get()));
            for (BpfMap m : obj.maps()) {
                String json = MapDump.json(m, obj.mapBtf(m.name()));
                out.add(m.type().isPercpu() ? m.name() + " sum " + BtfJson.write(obj.typedMap(m.name()).sum(0).orElseThrow()) : json);
            }
        }
        return String.join("\n", out);
    }

    @Test void variablesAndMapsAgreeOnBothEnginesBothWays() {
        String interp = scenario("interp");
        assertThat(scenario("jit")).isEqualTo(interp);
        assertThat(interp).contains("r1=122", "r2=0") // 'z'
                .contains("label char[12] .data = \"world\"", "default_proto enum proto .data = \"PROTO_TCP\"",
                        "limit const volatile __u32 .rodata = 10", "cfg const volatile struct cfg .rodata = {\"min\": 2, \"max\": 500, \"tag\": \"zq\"}")
                .contains("\"formatted\": {\"key\": {\"addr\": 167772161, \"port\": 80, \"proto\": 6, \"pad\": 0}, \"value\": {\"packets\": 2,")
                .contains("pcpu sum {\"hits\": 2, \"last\": 5, \"neg\": -5}");
    }

    @ParameterizedTest @ValueSource(strings = {"interp", "jit"})
    void typedMapsReadAndWriteWhatTheProgramSees(String engine) {
        try (BpfObject obj = open().load(ObjectLoadOptions.engine(engine))) {
            TypedMap flows = obj.typedMap("flows");
            Map<String, Object> key = Map.of("addr", 1, "port", 443, "proto", 17);
            Map<String, Object> start = new LinkedHashMap<>();
            start.put("packets", 41);
            start.put("bytes", 4_294_967_290L);
            start.put("kind", 31);
            flows.put(key, start);
            obj.program("btf_update").run(args(1, 443, 17, 0, 10, 0));
            BtfValue v = flows.get(key).orElseThrow();
            assertThat(v.get("packets").asLong()).isEqualTo(42);
            assertThat(v.get("bytes").asLong()).isEqualTo(4); // u32 wraps in the program, as in C
            assertThat(v.get("kind").asLong()).isZero(); // 5-bit bitfield wraps
            assertThat(v.get("lvl").toString()).isEqualTo("LEVEL_LOW"); // n 10 < limit 100
            MapView<FlowKey, Stats> view = flows.as(FlowKey.class, Stats.class);
            Stats s = view.get(new FlowKey(1, (short) 443, (byte) 17, (byte) 0)).orElseThrow();
            assertThat(s.packets()).isEqualTo(42);
            assertThat(s.name()).isEqualTo("hello");
            assertThat(view.snapshot()).hasSize(1);
            assertThat(flows.entries()).singleElement().satisfies(e -> assertThat(e.key().get("port").asLong()).isEqualTo(443));
            assertThat(flows.remove(key)).isTrue();
            assertThat(flows.remove(key)).isFalse();
            assertThatThrownBy(() -> flows.put(Map.of("addr", 1, "port", 70000), start)).isInstanceOf(BpfException.class)
                    .hasMessage("map 'flows' (HASH) key.port: 70000 does not fit port_t (0..65535)");
            assertThatThrownBy(() -> flows.put(key, Map.of("lvl", "LEVEL_ULTRA"))).isInstanceOf(BpfException.class)
                    .hasMessageContaining("enum level has no enumerator 'LEVEL_ULTRA'");

            TypedMap levels = obj.typedMap("levels");
            assertThat(levels.get(0).orElseThrow().toString()).isEqualTo("LEVEL_LOW");
            levels.put(3, "LEVEL_HIGH");
            assertThat(levels.get(3L).orElseThrow().asLong()).isEqualTo(1);
            assertThatThrownBy(() -> levels.get(1L << 32)).hasMessageContaining("4294967296 does not fit __u32");
        }
    }

    @ParameterizedTest @ValueSource(strings = {"interp", "jit"})
    void perCpuMapsGiveEveryCpuAndTheirSum(String engine) {
        try (BpfObject obj = open().load(ObjectLoadOptions.engine(engine))) {
            TypedMap pcpu = obj.typedMap("pcpu");
            for (int i = 0; i < 3; i++) obj.program("btf_update").run(args(1, 1, 1, 0, 7, 0));
            assertThatThrownBy(() -> pcpu.get(0)).isInstanceOf(BpfException.class).hasMessageContaining("is per-CPU: get would see one CPU's value");
            List<BtfValue> all = pcpu.getPerCpu(0).orElseThrow();
            assertThat(all).hasSize(Cpus.possible());
            assertThat(all.stream().mapToLong(v -> v.get("hits").asLong()).sum()).isEqualTo(3);
            BtfValue sum = pcpu.sum(0).orElseThrow();
            assertThat(sum.get("hits").asLong()).isEqualTo(3);
            List<Object> perCpu = new ArrayList<>(Collections.nCopies(Cpus.possible(), Map.of("hits", 1)));
            pcpu.putPerCpu(1, perCpu, 0);
            assertThat(pcpu.sum(1).orElseThrow().get("hits").asLong()).isEqualTo(Cpus.possible());
            assertThatThrownBy(() -> pcpu.putPerCpu(1, List.of(Map.of()), 0)).hasMessageContaining("possible CPUs");
            MapView<Integer, BtfValue> raw = pcpu.as(Integer.class, BtfValue.class);
            assertThatThrownBy(() -> raw.get(0)).isInstanceOf(BpfMapException.class).hasMessageContaining("use getPerCpu");
            assertThat(raw.getPerCpu(0).orElseThrow()).hasSize(Cpus.possible());
        }
    }

    @ParameterizedTest @ValueSource(strings = {"interp", "jit"})
    void globalsAreRangeCheckedAndRodataIsFrozenAfterLoad(String engine) {
        assertThatThrownBy(() -> open().variable("limit", 1L << 40)).isInstanceOf(BpfException.class)
                .hasMessage("variable 'limit' (const volatile __u32 in .rodata): 1099511627776 does not fit const volatile __u32 (0..4294967295)");
        assertThatThrownBy(() -> open().variable("nope", 1)).hasMessageContaining("no global variable 'nope'");
        assertThat(open().variable("limit", 7).variable("limit").asLong()).isEqualTo(7);
        try (BpfObject obj = open().load(ObjectLoadOptions.engine(engine))) {
            Variable ratio = obj.variable("ratio");
            assertThatThrownBy(() -> ratio.set(1L << 40)).isInstanceOf(BpfException.class)
                    .hasMessage("variable 'ratio' (__u32 in .data): 1099511627776 does not fit __u32 (0..4294967295)");
            assertThatThrownBy(() -> ratio.set(-1L)).hasMessageContaining("-1 does not fit __u32");
            assertThat(ratio.getLong()).isEqualTo(3);
            assertThatThrownBy(() -> obj.variable("offset").set(40000)).hasMessageContaining("40000 does not fit __s16 (-32768..32767)");
            assertThatThrownBy(() -> obj.variable("label").set("much too long")).hasMessageContaining("char[12] holds 12 bytes, 13 given");
            Variable limit = obj.variable("limit");
            assertThat(limit.isReadOnly()).isTrue();
            assertThatThrownBy(() -> limit.set(5)).isInstanceOf(BpfException.class)
                    .hasMessageContaining("variable 'limit' (const volatile __u32 in .rodata): .rodata is frozen after load");
            assertThat(limit.getLong()).isEqualTo(100);
            assertThatThrownBy(() -> obj.variable("nope")).isInstanceOf(dev.bpf4j.runtime.BpfNotFoundException.class)
                    .hasMessageContaining("has no global variable 'nope' (variables: limit, cfg, ratio, default_proto, label, offset, total, over_limit, big, last)");
        }
    }

    /** A Java write touches only the variable's bytes: the program's updates of its neighbours, meanwhile, survive. */
    @ParameterizedTest @ValueSource(strings = {"interp", "jit"})
    void writesFromAnotherThreadDoNotLoseTheProgramsWrites(String engine) throws Exception {
        int runs = 3000;
        try (BpfObject obj = open().variable("limit", 0).load(ObjectLoadOptions.engine(engine))) {
            Variable total = obj.variable("total");
            AtomicBoolean stop = new AtomicBoolean();
            Thread writer = new Thread(() -> {
                for (long i = 0; !stop.get(); i++) total.set(i);
            });
            writer.start();
            try {
                RunOptions o = args(1, 1, 1, 0, 1, 0);
                for (int i = 0; i < runs; i++) obj.program("btf_update").run(o);
            } finally {
                stop.set(true);
                writer.join();
            }
            assertThat(obj.variable("over_limit").getLong()).isEqualTo(runs); // the neighbour of total in .bss
        }
    }

    @Test void dumpMapsPrintsFormattedValues(@TempDir Path dir) throws Exception {
        Path ctx = Files.write(dir.resolve("args.bin"), args(0x0a000001, 80, 6, 2, 20, -100).ctxIn());
        ObjectCliTest.Result r = ObjectCliTest.cli("run", OBJ.toString(), "--ctx-in", ctx.toString(), "--engine", "all", "--dump-maps");
        assertThat(r.status()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).doesNotContain("== differences")
                .contains("\"formatted\": {\"key\": 0, \"values\": [{\"cpu\": 0, \"value\": {\"hits\": ")
                .contains("\"formatted\": {\"value\": {\".data\": [{\"ratio\": 3}, {\"default_proto\": \"PROTO_UDP\"}, {\"label\": \"hello\"}, {\"offset\": -5}]}}");
    }
}
