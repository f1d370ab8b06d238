package dev.bpf4j.cli.profile;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.MapDump;
import dev.bpf4j.api.ObjectLoadOptions;
import dev.bpf4j.api.OpenObject;
import dev.bpf4j.api.PerfEventProgram;
import dev.bpf4j.api.PerfEventSample;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.unwind.RememberedLookups;
import dev.bpf4j.unwind.Unwinder;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One perf_event program loaded once per engine — each engine with its own maps — and every sample
 * run through all of them in turn, so the engines see exactly the same samples and must end with
 * the same maps. Used from one thread.
 */
public final class SampleProgramRunner implements AutoCloseable {
    /** One engine's copy: its object (maps) and the program. */
    public record EngineCopy(String engine, BpfObject object, PerfEventProgram program) {
        /** The stacks the program counted, when its maps are a stack map + a u32 → u64 hash. */
        public Optional<MapStacks> stacks() { return MapStacks.read(object.maps()); }

        /** Every map as {@code bpftool map dump -j} JSON. */
        public List<String> mapDumps() {
            List<String> out = new ArrayList<>();
            for (BpfMap m : object.maps()) out.add(MapDump.json(m, object.mapBtf(m.name())));
            return out;
        }
    }

    private final List<EngineCopy> copies = new ArrayList<>();
    /** One sample's code lookups, shared by its replays: the engines unwind it over the same code. */
    private final RememberedLookups lookups = new RememberedLookups();

    /** @param unwinder the sampled process's unwinder (null: this process) */
    public SampleProgramRunner(OpenObject open, String program, List<Engine> engines, Unwinder unwinder) {
        unwinder = (unwinder == null ? Unwinder.global() : unwinder).remembering(lookups);
        try {
            for (Engine e : engines) {
                BpfObject obj = open.load(ObjectLoadOptions.engine(e));
                try {
                    copies.add(new EngineCopy(e.name(), obj, new PerfEventProgram(obj, program, unwinder)));
                } catch (RuntimeException ex) {
                    obj.close();
                    throw ex;
                }
            }
        } catch (RuntimeException ex) {
            close();
            throw ex;
        }
    }

    /** Runs the sample on every engine. */
    public void accept(PerfEventSample sample) {
        lookups.forget();
        for (EngineCopy c : copies) c.program().run(sample);
    }

    public List<EngineCopy> copies() { return copies; }

    /**
     * What differs between the first engine and each other one: stack ids with their ips and counts,
     * every map's contents, the number of failed runs. Empty when they agree.
     */
    public List<String> differences() {
        List<String> out = new ArrayList<>();
        if (copies.isEmpty()) return out;
        EngineCopy a = copies.get(0);
        for (EngineCopy b : copies.subList(1, copies.size())) {
            List<String> x = comparable(a), y = comparable(b);
            for (String s : x) if (!y.contains(s)) out.add(a.engine() + " only: " + s);
            for (String s : y) if (!x.contains(s)) out.add(b.engine() + " only: " + s);
        }
        return out;
    }

    private static List<String> comparable(EngineCopy c) {
        List<String> out = new ArrayList<>();
        out.add("runs " + c.program().runs() + ", errors " + c.program().errors());
        c.stacks().ifPresent(s -> out.addAll(s.byId()));
        out.addAll(c.mapDumps());
        return out;
    }

    @Override public void close() {
        for (EngineCopy c : copies) {
            c.program().close();
            c.object().close();
        }
        copies.clear();
    }
}
