package dev.bpf4j.cli.trace;

import dev.bpf4j.api.BpfObject;
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
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A trace that lasts: every engine's program attached to every function at once (the same probes
 * run them all on each hit), then the workload — this process's own threads, and the entry when one
 * is given, called once on a thread of its own through {@link RootCall} — until the duration is up,
 * the entry returns, or {@link #stop} is called (Ctrl-C). Then everything is detached, even while
 * the entry still runs (live detach is safe), and each engine's maps are read.
 *
 * <p>Probes are in this process only ("pid self"): they see every thread of the JVM running the
 * trace, its own threads included (a libc function is called by the JVM itself), and nothing of
 * other processes.
 */
public final class TraceSession {
    /** What the session saw beyond each engine's result: the entry's return value if it returned, and why it stopped. */
    public record Outcome(List<TraceRun.Result> results, OptionalLong returned, String stoppedBy, long millis) {}

    private final CountDownLatch stop = new CountDownLatch(1);
    private volatile String stoppedBy = "duration";

    /** Ends a running session early (from a shutdown hook on Ctrl-C). */
    public void stop(String why) {
        stoppedBy = why;
        stop.countDown();
    }

    /**
     * Runs the session. {@code durationMillis} 0: no time limit (until the entry returns, or
     * {@link #stop}); {@code target.entryAddress()} 0: no entry to call.
     */
    public Outcome run(OpenObject open, String program, List<Engine> engines, TraceTarget target, long arg, long durationMillis,
                       boolean dumpMaps, Consumer<String> traceSink) throws InterruptedException {
        List<BpfObject> objects = new ArrayList<>();
        List<List<ProbeLink>> links = new ArrayList<>();
        AtomicLong returned = new AtomicLong();
        boolean[] entryReturned = new boolean[1];
        long start = System.nanoTime();
        try {
            for (Engine engine : engines) objects.add(open.load(ObjectLoadOptions.engine(engine).withTraceSink(traceSink)));
            for (BpfObject obj : objects) {
                ProbeProgram probe = ProbeProgram.of(obj.program(program).defaultExecutable(), obj.mapTable().regions());
                List<ProbeLink> mine = new ArrayList<>();
                links.add(mine);
                target.attachAll(probe, mine);
            }
            start = System.nanoTime();
            if (target.entryAddress() != 0) {
                Thread call = new Thread(() -> {
                    returned.set(RootCall.get().call(target.entryAddress(), arg));
                    synchronized (entryReturned) {
                        entryReturned[0] = true;
                    }
                    stop("return");
                }, "bpf4j-trace-call");
                call.setDaemon(true);                         // a workload still running when the trace ends does not keep the JVM
                call.start();
            }
            if (durationMillis > 0) {
                stop.await(durationMillis, TimeUnit.MILLISECONDS);
            } else {
                stop.await();
            }
        } finally {
            for (List<ProbeLink> mine : links) mine.forEach(ProbeLink::close);
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        List<TraceRun.Result> results = new ArrayList<>();
        try {
            for (int k = 0; k < objects.size(); k++) {
                BpfObject obj = objects.get(k);
                List<String> hits = new ArrayList<>(), errors = new ArrayList<>();
                for (ProbeLink l : links.get(k)) {
                    hits.add(TraceTarget.probeName(l) + ": " + l.hits() + " hits, " + l.errors() + " errors, " + l.missed() + " missed");
                    if (l.errors() > 0) errors.add(TraceTarget.probeName(l) + ": " + l.lastError().map(Throwable::getMessage).orElse("(no detail)"));
                }
                List<String> maps = new ArrayList<>();
                if (dumpMaps) for (BpfMap m : obj.maps()) maps.add(MapDump.json(m));
                boolean done;
                synchronized (entryReturned) {
                    done = entryReturned[0];
                }
                results.add(new TraceRun.Result(engines.get(k).name(), done ? returned.get() : 0, hits, errors, StackCounts.read(obj.maps()), maps));
            }
        } finally {
            objects.forEach(BpfObject::close);
        }
        boolean done;
        synchronized (entryReturned) {
            done = entryReturned[0];
        }
        return new Outcome(results, done ? OptionalLong.of(returned.get()) : OptionalLong.empty(), stoppedBy, millis);
    }
}
