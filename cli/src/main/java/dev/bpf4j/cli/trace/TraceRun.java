package dev.bpf4j.cli.trace;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.BpfProgram;
import dev.bpf4j.api.MapDump;
import dev.bpf4j.api.ObjectLoadOptions;
import dev.bpf4j.api.OpenObject;
import dev.bpf4j.jit.probe.ProbeLink;
import dev.bpf4j.jit.probe.ProbeProgram;
import dev.bpf4j.jit.probe.RootCall;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.engine.Engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * One engine's trace: load the object on the engine, attach its program to every function of the
 * target, call the entry once through {@link RootCall}, detach, and read what the program counted.
 */
public final class TraceRun {
    /**
     * What one engine saw.
     *
     * @param returned the entry's return value
     * @param hits     per attached function: "name: H hits, E errors"
     * @param errors   the last error of each probe that had errors
     * @param stacks   the folded stacks, when the object has a stack map and a counting map
     * @param maps     every map as {@code bpftool map dump -j} JSON (when asked for)
     */
    public record Result(String engine, long returned, List<String> hits, List<String> errors, Optional<StackCounts> stacks,
                         List<String> maps) {
        /** What two engines must agree on: return value, hits, stacks by id, map contents. */
        public List<String> comparable() {
            List<String> out = new ArrayList<>();
            out.add("returned " + returned);
            out.addAll(hits);
            stacks.ifPresent(s -> out.addAll(s.byId()));
            out.addAll(maps);
            return out;
        }
    }

    private TraceRun() {}

    public static Result run(OpenObject open, String program, Engine engine, TraceTarget target, long arg, boolean dumpMaps,
                             Consumer<String> traceSink) {
        try (BpfObject obj = open.load(ObjectLoadOptions.engine(engine).withTraceSink(traceSink))) {
            BpfProgram p = obj.program(program);
            ProbeProgram probe = ProbeProgram.of(p.defaultExecutable(), obj.mapTable().regions());
            List<ProbeLink> links = new ArrayList<>();
            long returned;
            try {
                target.attachAll(probe, links);
                returned = RootCall.get().call(target.entryAddress(), arg);
            } finally {
                // Detach before the object closes its programs (a JIT program refuses to close while attached).
                links.forEach(ProbeLink::close);
            }
            List<String> hits = new ArrayList<>(), errors = new ArrayList<>();
            for (ProbeLink l : links) {
                hits.add(TraceTarget.probeName(l) + ": " + l.hits() + " hits, " + l.errors() + " errors, " + l.missed() + " missed");
                if (l.errors() > 0) errors.add(TraceTarget.probeName(l) + ": " + l.lastError().map(Throwable::getMessage).orElse("(no detail)"));
            }
            List<String> maps = new ArrayList<>();
            if (dumpMaps) for (BpfMap m : obj.maps()) maps.add(MapDump.json(m, obj.mapBtf(m.name())));
            return new Result(engine.name(), returned, hits, errors, StackCounts.read(obj.maps()), maps);
        }
    }
}
