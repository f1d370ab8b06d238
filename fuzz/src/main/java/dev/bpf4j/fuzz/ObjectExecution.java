package dev.bpf4j.fuzz;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.MapDump;
import dev.bpf4j.api.ObjectLoadOptions;
import dev.bpf4j.api.RunOptions;
import dev.bpf4j.api.RunResult;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.runtime.BpfException;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.engine.Engine;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * An object {@link FuzzCase} on one of bpf4j's engines through the object API, as a user's object
 * would run: load (the verifier is the gate), one {@code BPF_PROG_TEST_RUN}-shaped run with the packet,
 * then ctx_out and every map. Twice, each time on a fresh load, the second from a deeper Java stack:
 * a result that depends on native placement shows as the two runs disagreeing.
 */
final class ObjectExecution {
    private ObjectExecution() {}

    static EngineOutcome run(Engine engine, FuzzCase c) {
        BpfObjectSpec spec;
        try {
            spec = ObjectSpecs.of(c);
        } catch (IllegalArgumentException e) {
            return new EngineOutcome(engine.name(), Observation.rejected("not an object: " + e.getMessage()), null);
        }
        long start = System.nanoTime();
        Observation first = once(engine, spec, c.mem());
        long nanos = System.nanoTime() - start;
        if (first.verdict() == Observation.Verdict.REJECTED || first.verdict() == Observation.Verdict.CRASHED) {
            return new EngineOutcome(engine.name(), first, null, nanos);
        }
        Observation second = Execution.atDepth(Execution.SECOND_RUN_DEPTH, () -> once(engine, spec, c.mem()));
        return new EngineOutcome(engine.name(), first, second, nanos);
    }

    private static Observation once(Engine engine, BpfObjectSpec spec, byte[] packet) {
        BpfObject obj;
        try {
            obj = BpfObject.open(spec).load(ObjectLoadOptions.engine(engine));
        } catch (BpfException e) {
            return Observation.rejected(e.getMessage());
        } catch (RuntimeException | LinkageError | StackOverflowError | AssertionError e) {
            return Observation.crashed(e);
        }
        try (obj) {
            Observation o;
            String ctx = "";
            try {
                RunResult r = obj.program(ObjectSpecs.PROGRAM).run(RunOptions.packet(packet));
                o = Observation.returned(r.retval(), r.dataOut());
                if (r.ctxOut() != null) ctx = "ctx_out " + HexFormat.of().formatHex(r.ctxOut());
            } catch (BpfRuntimeException e) {
                o = Observation.failed(e.kind(), e.pc(), Addresses.describe(e.address(), 0, 0), null, e.getMessage());
            } catch (BpfException e) {
                o = Observation.failedOtherwise(e, null);
            }
            List<String> state = new ArrayList<>();
            if (!ctx.isEmpty()) state.add(ctx);
            for (BpfMap m : obj.maps()) state.add(MapLines.line(m.name(), MapDump.entries(m), m.type().isPercpu()));
            return o.withState(state);
        } catch (RuntimeException | LinkageError | StackOverflowError | AssertionError e) {
            return Observation.crashed(e);
        }
    }
}
