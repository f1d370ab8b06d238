package dev.bpf4j.jvm;

import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.runtime.BpfException;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * One engine's world for a test: fresh maps, a writable {@code out} block in r1, the standard
 * helpers; after the run, an outcome holding r0 or the error (kind and pc), the block and every map.
 */
final class World implements AutoCloseable {
    static final int OUT = 64;
    final Engine engine;
    final MapTable maps;
    final long out = NativeMemory.allocate(OUT);
    final List<Executable> loaded = new ArrayList<>();
    UnaryOperator<LoadOptions> options = o -> o;
    UnaryOperator<RunContext.Builder> context = c -> c;

    World(Engine engine, List<MapDefinition> defs) {
        this.engine = engine;
        this.maps = MapTable.create(defs);
        NativeMemory.setMemory(out, OUT, (byte) 0);
    }

    Executable load(Program p) {
        Executable e = Bpf.load(p, engine, options.apply(LoadOptions.defaults().withHelpers(BpfHelpers.registry(maps))));
        loaded.add(e);
        return e;
    }

    /** Without the verifier (its static call-depth and stack checks would refuse what the run-time checks are tested on). */
    Executable loadUnverified(Program p) {
        Executable e = engine.load(p, options.apply(LoadOptions.defaults().withHelpers(BpfHelpers.registry(maps))));
        loaded.add(e);
        return e;
    }

    /** Runs {@code main} (loaded by {@code setUp}) and describes what shows. */
    String run(Executable main, long budget) {
        RunContext.Builder ctx = RunContext.builder().arg(1, out).region(new MemoryRegion("out", out, OUT, true)).budget(budget);
        maps.regions().forEach(ctx::region);
        String result;
        try {
            result = "r0=" + main.run(context.apply(ctx).build());
        } catch (BpfRuntimeException e) {
            result = "error=" + e.kind() + " pc " + e.pc() + " in " + e.program();
        } catch (BpfException e) {
            result = "error=" + e.getMessage();
        }
        return result + "\nout=" + HexFormat.of().formatHex(NativeMemory.read(out, OUT)) + "\n" + dump();
    }

    private String dump() {
        StringBuilder sb = new StringBuilder();
        for (BpfMap m : maps.maps()) {
            if (m.type() == dev.bpf4j.maps.MapType.PROG_ARRAY) continue;
            TreeMap<String, String> kv = new TreeMap<>();
            for (byte[] k : m.keys()) kv.put(HexFormat.of().formatHex(k), m.lookup(k).map(v -> HexFormat.of().formatHex(v)).orElse("-"));
            sb.append(m.name()).append(kv).append('\n');
        }
        return sb.toString();
    }

    @Override public void close() {
        loaded.forEach(Executable::close);
        maps.close();
        NativeMemory.free(out);
    }

    /** Runs {@code scenario} in a fresh world per engine and demands the same description from all three. */
    static String agree(List<MapDefinition> defs, Function<World, String> scenario) {
        return Trio.agree(Trio.ENGINES, e -> {
            try (World w = new World(e, defs)) {
                return new Trio.Outcome(e.name(), 0L, scenario.apply(w), new byte[0]);
            }
        }).error();
    }

    static byte[] bytes(long... v) {
        byte[] b = new byte[v.length * 8];
        for (int i = 0; i < v.length; i++) for (int j = 0; j < 8; j++) b[i * 8 + j] = (byte) (v[i] >>> (8 * j));
        return b;
    }

    static String hex(byte[] b) { return Arrays.toString(b); }
}
