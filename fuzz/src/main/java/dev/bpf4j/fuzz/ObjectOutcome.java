package dev.bpf4j.fuzz;

import dev.bpf4j.api.PerCpuValues;
import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.BpfProgram;
import dev.bpf4j.api.MapDump;
import dev.bpf4j.api.ObjectLoadOptions;
import dev.bpf4j.api.RunOptions;
import dev.bpf4j.api.RunResult;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.runtime.LoadPhase;
import dev.bpf4j.runtime.BpfException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.MemoryRegion;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What one engine shows of one opened object: the load error (engine name removed), or, per loaded program
 * in object order, two test runs on the same object (the second sees the first's map updates) — retval,
 * data_out, ctx_out or the error — then every map's contents and the trace lines. A map-in-map slot shows
 * its inner map's name (ids differ between loads), per-CPU values are summed (which CPU a run uses is the
 * scheduler's choice). {@code crash} is set when something other than a {@link BpfException} escaped, or
 * a load error is marked {@link LoadPhase#INTERNAL_ERROR}.
 */
public record ObjectOutcome(String engine, boolean loaded, List<String> lines, String crash, int programsRun) {
    /** Back-edges plus calls per run: mutated loops end quickly and identically. */
    static final long BUDGET = 100_000;

    /** Ethernet + IPv4 + UDP (to port 53) with 18 payload bytes: the packet of xdp, tc, socket and cgroup_skb runs. */
    static final byte[] PACKET = HexFormat.of().parseHex("02000000000b02000000000a08004500002e123440004011"
            + "0000" + "0a0000010a0000029c400035001a0000" + "01080f161d242b323940474e555c636a7178");

    private static final HexFormat HEX = HexFormat.of();

    static ObjectOutcome of(BpfObjectSpec spec, Engine engine) {
        List<String> trace = new ArrayList<>();
        ObjectLoadOptions options = ObjectLoadOptions.engine(engine).withBudget(BUDGET).withHelperExtras(SteadyHelpers.forEachLoad())
                .withTraceSink(line -> {
            synchronized (trace) {
                if (trace.size() < 64) trace.add(line);
            }
        });
        BpfObject obj;
        try {
            obj = BpfObject.open(spec).load(options);
        } catch (BpfException e) {
            String m = String.valueOf(e.getMessage()).replace(" into " + engine.name(), "");
            boolean bug = m.contains(LoadPhase.INTERNAL_ERROR) || m.isBlank();
            return new ObjectOutcome(engine.name(), false, List.of("load failed: " + m), bug ? e.toString() : null, 0);
        } catch (RuntimeException | StackOverflowError | LinkageError | AssertionError e) {
            return new ObjectOutcome(engine.name(), false, List.of("load crashed: " + e), e.toString(), 0);
        }
        List<String> lines = new ArrayList<>();
        int ran = 0;
        try (obj) {
            for (BpfProgram p : obj.programs()) {
                RunOptions run = input(p);
                for (int i = 0; i < 2; i++) {
                    String r = runOnce(p, run, obj.mapTable().regions());
                    if (r.startsWith("crash")) return new ObjectOutcome(engine.name(), true, lines, p.name() + ": " + r, ran);
                    lines.add(p.name() + " run " + i + ": " + r);
                    if (!r.startsWith("not runnable")) ran++;
                }
            }
            for (BpfMap m : obj.maps()) lines.add("map " + m.name() + ": " + String.join(" ", entries(m)));
        } catch (RuntimeException | StackOverflowError | LinkageError | AssertionError e) {
            return new ObjectOutcome(engine.name(), true, lines, e.toString(), ran);
        }
        synchronized (trace) {
            for (String t : trace) lines.add("trace: " + t.strip());
        }
        return new ObjectOutcome(engine.name(), true, lines, null, ran);
    }

    /** A packet for the types that take one, nothing for the others (their context is zeroed). */
    private static RunOptions input(BpfProgram p) {
        return p.type().packetContext() != null ? RunOptions.packet(PACKET) : RunOptions.defaults();
    }

    private static String runOnce(BpfProgram p, RunOptions o, List<MemoryRegion> maps) {
        try {
            RunResult r = p.run(o);
            return "retval=" + r.retval() + (r.dataOut() == null ? "" : " data_out=" + HEX.formatHex(r.dataOut()))
                    + (r.ctxOut() == null ? "" : " ctx_out=" + HEX.formatHex(r.ctxOut()));
        } catch (BpfException e) {
            return "error " + e.getClass().getSimpleName() + ": " + nameAddresses(String.valueOf(e.getMessage()), maps);
        } catch (IllegalArgumentException e) {
            // BpfProgram.run's documented refusal of a type it cannot test-run
            if (String.valueOf(e.getMessage()).contains("cannot test-run")) return "not runnable: " + e.getMessage();
            return "crash: " + e;
        } catch (RuntimeException | StackOverflowError | LinkageError | AssertionError e) {
            return "crash: " + e;
        }
    }

    private static final Pattern NATIVE_ADDRESS = Pattern.compile("0x[0-9a-f]{5,16}\\b");

    /**
     * Each address from 0x10000 up in an error message named so that it compares between loads: {@code map+0x10}
     * inside a map's memory, else {@code native} (packet, context and stack lie where each load put them;
     * packets below 4 GiB, as xdp_md holds 32-bit pointers).
     */
    static String nameAddresses(String message, List<MemoryRegion> maps) {
        return NATIVE_ADDRESS.matcher(message).replaceAll(m -> {
            long a = Long.parseUnsignedLong(m.group().substring(2), 16);
            for (MemoryRegion r : maps) if (a >= r.start() && a < r.end()) return r.name() + "+0x" + Long.toHexString(a - r.start());
            return "native";
        });
    }

    /** "key=value" per entry ("value" alone for queues, stacks and ring buffers). */
    private static List<String> entries(BpfMap m) {
        List<String> out = new ArrayList<>();
        List<MapDump.Entry> dump;
        try {
            dump = MapDump.entries(m);
        } catch (BpfException e) { // e.g. a map the object made BPF_F_WRONLY cannot be read from user space
            return List.of("unreadable: " + e.getMessage());
        }
        for (MapDump.Entry e : dump) {
            String key = e.key() == null ? "" : HEX.formatHex(e.key()) + "=";
            out.add(key + (e.innerMap() != null ? e.innerMap() : HEX.formatHex(m.type().isPercpu() ? PerCpuValues.sum(e.values()) : e.values().get(0))));
        }
        return out;
    }

}
