package dev.bpf4j.it.perf;

import dev.bpf4j.api.MapDump;
import dev.bpf4j.cli.profile.ProfileObject;
import dev.bpf4j.kernel.BpfSyscall;
import dev.bpf4j.kernel.KernelBpf;
import dev.bpf4j.kernel.object.KernelObject;
import dev.bpf4j.object.BpfObjectSpec;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A perf_event program — the bundled profile program unless named — loaded into the Linux kernel. Only this class touches bpf4j-kernel, so
 * {@link KernelProfileTest} still loads (and skips) in the surefire execution that leaves
 * bpf4j-kernel off the class path.
 */
final class KernelProfileSide implements AutoCloseable {
    private final KernelObject kernel;
    private final String program;

    private KernelProfileSide(KernelObject kernel, String program) {
        this.kernel = kernel;
        this.program = program;
    }

    /** False in the default surefire execution, which leaves bpf4j-kernel off the class path. */
    static boolean onClassPath() {
        try {
            Class.forName("dev.bpf4j.kernel.KernelBpf", false, KernelProfileSide.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** Skips the calling test where bpf4j-kernel is off the class path or bpf() is refused, saying which. */
    static void assumeUsable() {
        org.junit.jupiter.api.Assumptions.assumeTrue(onClassPath(),
                "bpf4j-kernel is not on this surefire execution's class path (see it-tests/pom.xml)");
        String refused = unavailableReason();
        org.junit.jupiter.api.Assumptions.assumeTrue(refused == null, () -> "bpf() is not permitted here: " + refused);
    }

    /** Null when this process may use bpf(), else why not. */
    static String unavailableReason() {
        KernelBpf.Availability a = KernelBpf.availability();
        return a.available() ? null : a.reason();
    }

    static KernelProfileSide load(BpfObjectSpec spec) { return load(spec, ProfileObject.PROGRAM); }

    static KernelProfileSide load(BpfObjectSpec spec, String program) {
        return new KernelProfileSide(KernelObject.load(spec, List.of(program)), program);
    }

    int programFd() { return kernel.programFd(program); }

    /** The entries of map {@code name} (not a stack map: the dump skips those). */
    List<MapDump.Entry> entries(String name) { return dump().get(name); }

    /** counts: stack id → samples. */
    TreeMap<Integer, Long> counts() {
        TreeMap<Integer, Long> out = new TreeMap<>();
        for (MapDump.Entry e : dump().get("counts")) out.put(le(e.key()).getInt(), le(e.values().get(0)).getLong());
        return out;
    }

    /**
     * stack_traces under the ids that {@code counts} holds: stack id → ips, innermost first (the
     * kernel zero-fills past the trace). Looked up one by one: the map dump skips stack maps.
     */
    TreeMap<Integer, List<Long>> stacks() {
        TreeMap<Integer, List<Long>> out = new TreeMap<>();
        int fd = kernel.mapFd("stack_traces");
        for (int id : counts().keySet()) {
            if (id < 0) continue;
            byte[] value = BpfSyscall.mapLookup(fd, le(new byte[4]).putInt(0, id).array(), 127 * 8);
            if (value == null) continue;
            List<Long> ips = new ArrayList<>();
            ByteBuffer b = le(value);
            while (b.remaining() >= 8) {
                long ip = b.getLong();
                if (ip == 0) break;
                ips.add(ip);
            }
            out.put(id, ips);
        }
        return out;
    }

    private Map<String, List<MapDump.Entry>> dump() { return kernel.dump(); }

    private static ByteBuffer le(byte[] b) { return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN); }

    @Override public void close() { kernel.close(); }
}
