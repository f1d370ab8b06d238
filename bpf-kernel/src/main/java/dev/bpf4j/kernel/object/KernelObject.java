package dev.bpf4j.kernel.object;

import dev.bpf4j.api.MapDump;
import dev.bpf4j.api.RunOptions;
import dev.bpf4j.api.RunResult;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.kernel.BpfSyscall;
import dev.bpf4j.kernel.KernelBpfException;
import dev.bpf4j.kernel.KernelLoadException;
import dev.bpf4j.kernel.KernelRejectedException;
import dev.bpf4j.kernel.MapCreateRequest;
import dev.bpf4j.kernel.ProgLoadRequest;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.object.MapReference;
import dev.bpf4j.object.MapSpec;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.object.ProgramSpec;
import dev.bpf4j.runtime.BpfNotFoundException;
import dev.bpf4j.object.ProgramType;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An object loaded into the Linux kernel the way libbpf loads it, to run its programs with
 * BPF_PROG_TEST_RUN as a third engine beside bpf4j's: the BTF (BPF_BTF_LOAD, DATASEC fixups applied),
 * one kernel map per map spec (with its BTF key/value type ids, retried without when the kernel
 * refuses them, as libbpf does), global data written in and read-only maps ({@code .rodata})
 * frozen, map-in-maps created with a temporary inner map made from their template and their
 * {@code .values} slots filled with the named maps, map {@code lddw}s given the map fds, each program
 * loaded with its real type, its func_info and line_info, and every program array filled with the
 * programs its {@code .values} name.
 *
 * <p>Loaded are the programs asked for and every program some program array names (a tail call
 * needs its target in the kernel).
 */
public final class KernelObject implements AutoCloseable {
    private final BpfObjectSpec spec;
    private final Map<String, Integer> mapFds = new LinkedHashMap<>();
    private final Map<String, Integer> progFds = new LinkedHashMap<>();
    private int btfFd;
    private BtfEncoder btf;
    private String btfProblem;

    private KernelObject(BpfObjectSpec spec) { this.spec = spec; }

    /** Loads {@code programs} of {@code spec} and every program array target; throws {@link KernelRejectedException} when the verifier refuses one. */
    public static KernelObject load(BpfObjectSpec spec, List<String> programs) {
        KernelObject k = new KernelObject(spec);
        try {
            k.loadBtf();
            for (MapSpec m : spec.maps()) k.createMap(m);
            for (MapSpec m : spec.maps()) if (m.type().isMapInMap()) k.fillInnerSlots(m);
            Set<String> wanted = new LinkedHashSet<>();
            for (String p : programs) wanted.add(spec.program(p).name());
            for (MapSpec m : spec.maps()) if (m.type() == MapType.PROG_ARRAY) wanted.addAll(m.initialSlots().values());
            for (String p : wanted) k.loadProgram(spec.program(p));
            for (MapSpec m : spec.maps()) if (m.type() == MapType.PROG_ARRAY) k.fillProgArray(m);
            return k;
        } catch (RuntimeException e) {
            k.close();
            throw e;
        }
    }

    /** Whether the kernel can test-run programs of this spec's type (kprobe and perf_event programs it cannot). */
    public static boolean testRunnable(ProgramSpec p) { return KernelTestRun.runnable(p.type()); }

    public BpfObjectSpec spec() { return spec; }

    /** Why the object's BTF was not loaded, or null when it was (or the object has none). */
    public String btfProblem() { return btfProblem; }

    /**
     * One BPF_PROG_TEST_RUN (or {@code repeat} of them) of a loaded program.
     *
     * @throws BpfNotFoundException when that program was not loaded
     * @throws KernelLoadException  when the kernel cannot test-run the program's type
     */
    public RunResult run(String program, RunOptions options) {
        int fd = programFd(program);
        ProgramSpec p = spec.program(program);
        if (!KernelTestRun.runnable(p.type())) {
            throw new KernelLoadException("program '" + program + "': the kernel has no BPF_PROG_TEST_RUN for " + p.type() + " programs");
        }
        return KernelTestRun.run(fd, p.type(), options);
    }

    /** Every map's contents in {@link MapDump#entries} shape, in the object's map order; ring buffers are consumed. */
    public Map<String, List<MapDump.Entry>> dump() {
        Map<String, List<MapDump.Entry>> out = new LinkedHashMap<>();
        for (MapSpec m : spec.maps()) {
            List<MapDump.Entry> entries = KernelMapDump.entries(m, mapFds.get(m.name()));
            if (m.type().isMapInMap()) entries = entries.stream().map(this::namedInner).toList();
            out.put(m.name(), entries);
        }
        return out;
    }

    /** A map-in-map entry (the value is a kernel map id) with the name of the map it holds, as bpf4j's dump has it. */
    private MapDump.Entry namedInner(MapDump.Entry e) {
        byte[] v = e.values().get(0);
        int id = (v[0] & 0xff) | (v[1] & 0xff) << 8 | (v[2] & 0xff) << 16 | (v[3] & 0xff) << 24;
        String name = "?";
        for (var m : mapFds.entrySet()) if (BpfSyscall.mapId(m.getValue()) == id) name = m.getKey();
        return new MapDump.Entry(e.key(), e.values(), name);
    }

    /** The fd of a loaded program, for callers that attach it themselves (a perf event's SET_BPF). */
    public int programFd(String name) {
        Integer fd = progFds.get(name);
        if (fd == null) throw new BpfNotFoundException("program", name, List.copyOf(progFds.keySet()), "program '" + name
                + "' is not loaded into the kernel (loaded: " + String.join(", ", progFds.keySet()) + ")");
        return fd;
    }

    /** The fd of a map, for callers that read it themselves. */
    public int mapFd(String name) {
        Integer fd = mapFds.get(name);
        if (fd == null) throw new BpfNotFoundException("map", name, List.copyOf(mapFds.keySet()), "object '" + spec.name()
                + "' has no map '" + name + "' (maps: " + String.join(", ", mapFds.keySet()) + ")");
        return fd;
    }

    private void loadBtf() {
        if (spec.btf() == null) return;
        try {
            btf = new BtfEncoder(spec.btf());
            // line_info names are strings of the BTF: add them before the blob is written
            for (ProgramSpec p : spec.programs()) ProgramBtf.lineInfo(p, btf);
            btfFd = BpfSyscall.btfLoad(btf.bytes());
        } catch (KernelBpfException | IllegalArgumentException e) {
            // libbpf also goes on without BTF; programs that need it (callbacks) are then refused with the verifier's reason
            btf = null;
            btfFd = 0;
            btfProblem = e.getMessage();
        }
    }

    private void createMap(MapSpec m) {
        int fd = create(m);
        mapFds.put(m.name(), fd);
        if (m.contents() != null) BpfSyscall.mapUpdate(fd, new byte[4], m.contents(), BpfSyscall.BPF_ANY);
        // libbpf freezes .rodata (and .kconfig): user space can no longer change it, and the verifier treats it as constant
        if (m.isInternal() && m.isReadOnly()) BpfSyscall.mapFreeze(fd);
    }

    /**
     * BPF_MAP_CREATE as libbpf's bpf_object__create_map: with the BTF key/value type ids (retried without them
     * when the kernel refuses, "failed to create map with BTF, retrying without"; map-in-maps get none), and for
     * a map-in-map the fd of a temporary inner map made from its template, closed once the outer map exists.
     */
    private int create(MapSpec m) {
        int inner = m.innerMap() == null ? 0 : create(m.innerMap());
        try {
            if (btfFd > 0 && (m.keyTypeId() != 0 || m.valueTypeId() != 0) && !m.type().isMapInMap()) {
                try {
                    return BpfSyscall.mapCreate(request(m, inner, btfFd, m.keyTypeId(), m.valueTypeId()));
                } catch (KernelBpfException e) {
                    // retried without BTF below
                }
            }
            return BpfSyscall.mapCreate(request(m, inner, 0, 0, 0));
        } finally {
            if (inner > 0) BpfSyscall.close(inner);
        }
    }

    private static MapCreateRequest request(MapSpec m, int innerFd, int btf, int keyType, int valueType) {
        return new MapCreateRequest(m.type().id(), m.keySize(), m.valueSize(), m.maxEntries(), m.flags(), m.name(), innerFd, btf, keyType, valueType);
    }

    /** libbpf's init_map_in_map_slots: slot i (a u32 key, for hashes too) gets the fd of the map named there. */
    private void fillInnerSlots(MapSpec m) {
        for (var slot : m.initialSlots().entrySet()) {
            BpfSyscall.mapUpdate(mapFds.get(m.name()), le32(slot.getKey()), le32(mapFds.get(slot.getValue())), BpfSyscall.BPF_ANY);
        }
    }

    private void loadProgram(ProgramSpec p) {
        Insn[] code = p.program().toArray();
        for (MapReference r : p.mapReferences()) {
            Insn i = code[r.pc()];
            code[r.pc()] = new Insn(i.opcode(), i.dst(), i.src(), i.off(), mapFds.get(r.mapName()));
        }
        boolean sleepable = p.sleepable() || p.type() == ProgramType.SYSCALL;
        ProgLoadRequest req = new ProgLoadRequest(p.type().id, p.attachType().id, Insn.encodeAll(code), spec.license(), p.name(),
                sleepable ? ProgLoadRequest.BPF_F_SLEEPABLE : 0, 0);
        if (btfFd > 0 && !p.funcInfos().isEmpty()) req = req.withBtf(btfFd, ProgramBtf.funcInfo(p), ProgramBtf.lineInfo(p, btf));
        try {
            progFds.put(p.name(), BpfSyscall.progLoad(req));
        } catch (KernelBpfException e) {
            throw new KernelRejectedException(p.name(), e);
        }
    }

    private void fillProgArray(MapSpec m) {
        for (var slot : m.initialSlots().entrySet()) {
            byte[] key = le32(slot.getKey());
            BpfSyscall.mapUpdate(mapFds.get(m.name()), key, le32(progFds.get(slot.getValue())), BpfSyscall.BPF_ANY);
        }
    }

    private static byte[] le32(int v) { return new byte[] {(byte) v, (byte) (v >> 8), (byte) (v >> 16), (byte) (v >> 24)}; }

    @Override public void close() {
        List<Integer> fds = new ArrayList<>(progFds.values());
        fds.addAll(mapFds.values());
        progFds.clear();
        mapFds.clear();
        fds.forEach(BpfSyscall::close);
        if (btfFd > 0) BpfSyscall.close(btfFd);
        btfFd = 0;
    }
}
