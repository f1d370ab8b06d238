package dev.bpf4j.it.corpus;

import dev.bpf4j.api.RunOptions;
import dev.bpf4j.api.RunResult;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.btf.BtfEncoder;
import dev.bpf4j.kernel.BpfSyscall;
import dev.bpf4j.kernel.MapCreateRequest;
import dev.bpf4j.kernel.ProgLoadRequest;
import dev.bpf4j.kernel.TestRunRequest;
import dev.bpf4j.kernel.TestRunResult;
import dev.bpf4j.maps.Cpus;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.object.MapReference;
import dev.bpf4j.object.MapSpec;
import dev.bpf4j.object.MapType;
import dev.bpf4j.object.ProgramSpec;
import dev.bpf4j.object.ProgramType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The same object loaded into the Linux kernel the way libbpf would: the object's BTF (after the DATASEC
 * fixups) loaded with {@code BPF_BTF_LOAD} and given to each map with BTF key/value types (not to fd-based
 * maps, as libbpf), map-in-maps created with a temporary inner map from their template and their
 * {@code .values} slots filled, global data written in, map {@code lddw}s given the map fds, each program
 * loaded with its real type (programs get no func/line info), and runs made with {@code BPF_PROG_TEST_RUN}
 * — the oracle for the object layer's contexts, relocations and map effects.
 */
final class KernelObject implements AutoCloseable {
    private static final HexFormat HEX = HexFormat.of();
    private final Map<String, Integer> mapFds = new LinkedHashMap<>();
    private final Map<String, MapSpec> maps = new LinkedHashMap<>();
    private final Map<String, Integer> progFds = new LinkedHashMap<>();
    private final Map<String, ProgramType> types = new LinkedHashMap<>();

    private int btfFd = -1;

    KernelObject(BpfObjectSpec spec, String program) {
        try {
            if (spec.btf() != null) btfFd = BpfSyscall.btfLoad(BtfEncoder.encode(spec.btf()));
            for (MapSpec m : spec.maps()) {
                int fd = create(m);
                mapFds.put(m.name(), fd);
                maps.put(m.name(), m);
                if (m.contents() != null) BpfSyscall.mapUpdate(fd, new byte[4], m.contents(), BpfSyscall.BPF_ANY);
            }
            for (MapSpec m : spec.maps()) { // libbpf's init_map_in_map_slots: u32 slot index -> inner map fd
                if (!m.type().isMapInMap()) continue;
                for (var slot : m.initialSlotsSorted().entrySet()) {
                    BpfSyscall.mapUpdate(mapFds.get(m.name()), le32(slot.getKey()), le32(mapFds.get(slot.getValue())), BpfSyscall.BPF_ANY);
                }
            }
            ProgramSpec p = spec.program(program);
            Insn[] code = p.program().toArray();
            for (MapReference r : p.mapReferences()) {
                Insn i = code[r.pc()];
                code[r.pc()] = new Insn(i.opcode(), i.dst(), i.src(), i.off(), mapFds.get(r.mapName()));
            }
            int flags = p.type() == ProgramType.SYSCALL ? ProgLoadRequest.BPF_F_SLEEPABLE : 0;
            progFds.put(p.name(), BpfSyscall.progLoad(new ProgLoadRequest(p.type().id, p.attachType().id, Insn.encodeAll(code),
                    spec.license(), p.name(), flags, 0)));
            types.put(p.name(), p.type());
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** BPF_MAP_CREATE as libbpf's bpf_object__create_map: BTF types unless fd-based, a temporary inner map for map-in-maps. */
    private int create(MapSpec m) {
        boolean btf = btfFd >= 0 && m.keyTypeId() != 0 && m.valueTypeId() != 0 && !fdBased(m.type()); // keyless maps: libbpf retries without BTF
        int inner = m.innerMap() == null ? 0 : create(m.innerMap());
        try {
            return BpfSyscall.mapCreate(new MapCreateRequest(m.type().id, m.keySize(), m.valueSize(), m.maxEntries(), m.flags(),
                    m.name(), inner, btf ? btfFd : 0, btf ? m.keyTypeId() : 0, btf ? m.valueTypeId() : 0));
        } finally {
            if (inner > 0) BpfSyscall.close(inner);
        }
    }

    private static boolean fdBased(MapType t) {
        return t == MapType.PROG_ARRAY || t == MapType.PERF_EVENT_ARRAY || t == MapType.ARRAY_OF_MAPS || t == MapType.HASH_OF_MAPS
                || t == MapType.CGROUP_ARRAY || t == MapType.STACK_TRACE || t == MapType.RINGBUF;
    }

    private static byte[] le32(int v) { return new byte[] {(byte) v, (byte) (v >> 8), (byte) (v >> 16), (byte) (v >> 24)}; }

    /** False in the default surefire execution, which leaves bpf4j-kernel off the class path. */
    static boolean onClassPath() {
        try {
            Class.forName("dev.bpf4j.kernel.KernelBpf", false, KernelObject.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** Null when this process may use bpf(), else why not. */
    static String unavailableReason() {
        var a = dev.bpf4j.kernel.KernelBpf.availability();
        return a.available() ? null : a.reason();
    }

    RunResult run(String program, RunOptions o) {
        int fd = progFds.get(program);
        ProgramType type = types.get(program);
        boolean packet = o.dataIn() != null;
        boolean skb = type == ProgramType.SCHED_CLS || type == ProgramType.SOCKET_FILTER || type == ProgramType.SCHED_ACT
                || type == ProgramType.CGROUP_SKB;
        if (!packet) {
            // raw_tp and syscall programs refuse repeat: run them repeat times
            TestRunResult r = null;
            for (int i = 0; i < o.repeat(); i++) r = BpfSyscall.progTestRun(fd, TestRunRequest.ofContext(o.ctxIn()));
            boolean back = type == ProgramType.SYSCALL && o.ctxIn() != null && o.ctxIn().length > 0;
            return new RunResult(r.retvalUnsigned(), null, back ? r.ctxIn() : null, r.duration());
        }
        TestRunResult r = BpfSyscall.progTestRun(fd, new TestRunRequest(o.dataIn(), o.dataIn().length + 256, o.ctxIn(),
                skb ? 192 : 0, o.repeat()));
        return new RunResult(r.retvalUnsigned(), r.dataOut(), skb ? r.ctxOut() : null, r.duration());
    }

    /** Like {@link Outcome}'s map dump; queues, stacks, ring buffers and prog arrays are left out (no non-destructive read here). */
    Map<String, List<String>> dump() {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (var e : maps.entrySet()) {
            MapSpec m = e.getValue();
            if (!dumpable(m.type())) continue;
            boolean percpu = m.type() == MapType.PERCPU_ARRAY || m.type() == MapType.PERCPU_HASH || m.type() == MapType.LRU_PERCPU_HASH;
            int stride = (m.valueSize() + 7) & ~7;
            int fd = mapFds.get(e.getKey());
            List<byte[]> keys = new ArrayList<>();
            for (byte[] k = BpfSyscall.mapGetNextKey(fd, null, m.keySize()); k != null; k = BpfSyscall.mapGetNextKey(fd, k, m.keySize())) keys.add(k);
            keys.sort(Comparator.comparing((byte[] k) -> k, Arrays::compareUnsigned));
            List<String> entries = new ArrayList<>();
            for (byte[] k : keys) {
                byte[] v = BpfSyscall.mapLookup(fd, k, percpu ? stride * Cpus.possible() : m.valueSize());
                if (v == null) continue;
                if (m.type().isMapInMap()) { // a kernel map id: name the map, as Outcome does
                    entries.add(HEX.formatHex(k) + "=" + mapNameById(java.nio.ByteBuffer.wrap(v).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt()));
                    continue;
                }
                if (percpu) {
                    List<byte[]> per = new ArrayList<>();
                    for (int c = 0; c < Cpus.possible(); c++) per.add(Arrays.copyOfRange(v, c * stride, c * stride + m.valueSize()));
                    v = Outcome.sum(per);
                }
                entries.add(HEX.formatHex(k) + "=" + HEX.formatHex(v));
            }
            out.put(e.getKey(), entries);
        }
        return out;
    }

    private String mapNameById(int id) {
        for (var e : mapFds.entrySet()) if (BpfSyscall.mapId(e.getValue()) == id) return e.getKey();
        return "?";
    }

    static boolean dumpable(MapType t) {
        return t != MapType.QUEUE && t != MapType.STACK && t != MapType.RINGBUF && t != MapType.PROG_ARRAY;
    }

    @Override public void close() {
        progFds.values().forEach(BpfSyscall::close);
        mapFds.values().forEach(BpfSyscall::close);
        BpfSyscall.close(btfFd);
    }
}
