package dev.bpf4j.cli.profile;

import dev.bpf4j.api.MapDump;
import dev.bpf4j.kernel.BpfSyscall;
import dev.bpf4j.kernel.KernelBpf;
import dev.bpf4j.kernel.object.KernelObject;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.unwind.sampling.KernelSampledProgram;
import dev.bpf4j.unwind.sampling.PerfEventAttr;
import dev.bpf4j.unwind.sampling.SampleFormat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A perf_event program loaded into the Linux kernel and attached to perf events there
 * ({@code PERF_EVENT_IOC_SET_BPF}: the kernel runs it on each of its own samples, as BCC's
 * profile.py attaches one) — {@code profile --engine kernel} and the kernel-oracle tests. Its maps
 * are read back with bpf(). Only this class of the CLI touches bpf4j-kernel.
 */
public final class KernelProfile implements AutoCloseable {
    private final KernelObject kernel;
    private final String program;
    private final List<KernelSampledProgram> events = new ArrayList<>();

    private KernelProfile(KernelObject kernel, String program) {
        this.kernel = kernel;
        this.program = program;
    }

    /** False where bpf4j-kernel is off the class path (it-tests' default surefire execution). */
    public static boolean onClassPath() {
        try {
            Class.forName("dev.bpf4j.kernel.KernelBpf", false, KernelProfile.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** Null when this process may use bpf(), else why not. */
    public static String unavailableReason() {
        if (!onClassPath()) return "bpf4j-kernel is not on the class path";
        KernelBpf.Availability a = KernelBpf.availability();
        return a.available() ? null : a.reason();
    }

    public static KernelProfile load(BpfObjectSpec spec) { return load(spec, ProfileObject.PROGRAM); }

    /** Loads {@code program} of {@code spec} (and its maps) into the kernel. */
    public static KernelProfile load(BpfObjectSpec spec, String program) {
        return new KernelProfile(KernelObject.load(spec, List.of(program)), program);
    }

    public int programFd() { return kernel.programFd(program); }

    /**
     * Attaches the program to an event as {@code like} (its clock and rate) on thread {@code tid} (user space,
     * no ring: the kernel hands each sample to the program); {@code inherit} also follows the
     * threads it starts later. Throws {@code SamplingRefusedException} where perf_event_open is refused.
     */
    public void attach(int tid, PerfEventAttr like, boolean inherit) {
        PerfEventAttr attr = new PerfEventAttr(like.config(), like.frequency(), like.rate(), new SampleFormat(false, 8));
        events.add(KernelSampledProgram.attach(attr, tid, programFd(), inherit));
    }

    /** Disables and closes the events: the program runs no more, its maps stay readable. */
    public void detach() {
        for (KernelSampledProgram e : events) e.close();
        events.clear();
    }

    /** The entries of map {@code name} (not a stack map: the dump skips those). */
    public List<MapDump.Entry> entries(String name) { return dump().get(name); }

    /** counts: stack id → samples (a stack-id-keyed counting map named {@code counts}). */
    public TreeMap<Integer, Long> counts() {
        TreeMap<Integer, Long> out = new TreeMap<>();
        for (MapDump.Entry e : dump().get("counts")) out.put(le(e.key()).getInt(), le(e.values().get(0)).getLong());
        return out;
    }

    /**
     * stack_traces under the ids that {@code counts} holds: stack id → ips, innermost first (the
     * kernel zero-fills past the trace). Looked up one by one: the map dump skips stack maps.
     */
    public TreeMap<Integer, List<Long>> stacks() {
        TreeMap<Integer, List<Long>> out = new TreeMap<>();
        for (int id : counts().keySet()) {
            if (id < 0) continue;
            List<Long> ips = stack(id);
            if (ips != null) out.put(id, ips);
        }
        return out;
    }

    /** The program's stacks as {@link MapStacks} reads bpf4j's copies: {@code counts} (per stack id or per thread) and {@code stack_traces}. */
    public MapStacks mapStacks() {
        Map<byte[], byte[]> entries = new LinkedHashMap<>();
        for (MapDump.Entry e : dump().get("counts")) entries.put(e.key(), e.values().get(0));
        return MapStacks.of(entries, id -> {
            List<Long> ips = stack(id);
            return ips == null ? List.of() : ips;
        });
    }

    private List<Long> stack(int id) {
        byte[] value = BpfSyscall.mapLookup(kernel.mapFd("stack_traces"), le(new byte[4]).putInt(0, id).array(), 127 * 8);
        if (value == null) return null;
        List<Long> ips = new ArrayList<>();
        ByteBuffer b = le(value);
        while (b.remaining() >= 8) {
            long ip = b.getLong();
            if (ip == 0) break;
            ips.add(ip);
        }
        return ips;
    }

    private Map<String, List<MapDump.Entry>> dump() { return kernel.dump(); }

    private static ByteBuffer le(byte[] b) { return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN); }

    @Override public void close() {
        detach();
        kernel.close();
    }
}
