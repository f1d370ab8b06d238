package dev.bpf4j.unwind;

import dev.bpf4j.unwind.cfi.CfiFormatException;
import dev.bpf4j.unwind.cfi.CfiRow;
import dev.bpf4j.unwind.cfi.ModuleCfi;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Where code lives in this process: the JIT's regions ({@link CodeMap}) and every executable
 * mapping of {@code /proc/self/maps} — file-backed ones as {@link NativeModule}s (symbols loaded
 * lazily, one module per file), anonymous ones (the JVM's code cache, {@code [vdso]}) as bare code.
 * Libraries loaded later are found by re-reading the maps on a miss, at most once per
 * {@link #minRescanNanos} so that walks over garbage addresses cannot make it re-read the maps
 * in a loop. Mappings removed by {@code dlclose} stay known until the next re-read.
 */
public final class ProcessCode {
    static final long PAGE_SIZE = 4096;
    private static final ProcessCode GLOBAL = new ProcessCode(CodeMap.global(), ProcMaps::read, TimeUnit.MILLISECONDS.toNanos(5));

    /** An executable mapping; {@code module} is null for anonymous code. */
    public record NativeMapping(ProcMaps.Mapping mapping, NativeModule module) {
        /** What to add to the module's ELF virtual addresses to get addresses of this mapping. */
        public long bias() { return module == null ? 0 : module.bias(mapping.start(), mapping.offset()); }
    }

    /** Executable mappings, and the ranges of every other mapping (data: where no code can be). */
    private record Snapshot(long[] starts, long[] ends, NativeMapping[] mappings, long[] dataStarts, long[] dataEnds) {}

    /** Below the first page a program may map ({@code vm.mmap_min_addr}) and above user space no code is. */
    private static final long MIN_CODE = 0x10000, USER_END = 0x0000_8000_0000_0000L;

    private final CodeMap jit;
    private final Supplier<List<ProcMaps.Mapping>> maps;
    /** {@code /proc/self} or {@code /proc/PID}: where {@code map_files} are. */
    private final String procDir;
    private final long minRescanNanos;
    /** Another process's {@code /tmp/perf-PID.map} (null for this one: bpf4j's JIT is in {@link #jit}). */
    private final PerfMapFile perfMap;
    private final Map<String, NativeModule> modules = new HashMap<>();
    private volatile Snapshot snapshot;
    private volatile long lastScan;
    private volatile int scans;

    /** @param maps where mappings come from ({@link ProcMaps#read} for this process) */
    public ProcessCode(CodeMap jit, Supplier<List<ProcMaps.Mapping>> maps, long minRescanNanos) {
        this(jit, maps, minRescanNanos, "/proc/self", null);
    }

    private ProcessCode(CodeMap jit, Supplier<List<ProcMaps.Mapping>> maps, long minRescanNanos, String procDir, PerfMapFile perfMap) {
        this.jit = jit;
        this.perfMap = perfMap;
        this.maps = maps;
        this.minRescanNanos = minRescanNanos;
        this.procDir = procDir;
    }

    /**
     * The code of another process {@code pid}: its executable mappings from {@code /proc/PID/maps}
     * (no JIT regions: bpf4j's code map is this process's), re-read at most once per
     * {@code minRescanNanos}. Once the process has exited its maps cannot be read: the last ones
     * read are kept, so its samples can still be named afterwards. Code without a file (a JVM's
     * compiled Java) is named from the process's {@code /tmp/perf-PID.map} where it wrote one.
     */
    public static ProcessCode ofProcess(int pid, long minRescanNanos) {
        return new ProcessCode(new CodeMap(), () -> ProcMaps.read(pid), minRescanNanos, "/proc/" + pid, PerfMapFile.ofProcess(pid));
    }

    /** The perf map naming the process's generated code: another process's {@code /tmp/perf-PID.map}. */
    public Optional<PerfMapFile> perfMap() { return Optional.ofNullable(perfMap); }

    /** The process-wide view over {@link CodeMap#global()} and {@code /proc/self/maps}. */
    public static ProcessCode global() { return GLOBAL; }

    public CodeMap jit() { return jit; }

    /** True when {@code ip} is inside a JIT region or an executable mapping. */
    public boolean isCode(long ip) {
        return jit.find(ip).isPresent() || nativeMapping(ip).isPresent();
    }

    public Optional<CodeRegion> jitRegion(long ip) { return jit.find(ip); }

    /**
     * The CFI row for {@code pc} from the {@code .eh_frame} of the module mapped there; empty for
     * anonymous code, a module without CFI, a pc no FDE covers, or a malformed FDE (counted in
     * {@link #cfiErrors()}: the caller falls back to the frame pointer).
     */
    public Optional<CfiRow> cfiRow(long pc) {
        NativeMapping m = nativeMapping(pc).orElse(null);
        if (m == null || m.module() == null) return Optional.empty();
        ModuleCfi cfi = m.module().cfi();
        if (!cfi.present()) return Optional.empty();
        try {
            return cfi.rowFor(pc - m.bias());
        } catch (CfiFormatException e) {
            cfiErrors.incrementAndGet();
            lastCfiError = e.getMessage();
            return Optional.empty();
        }
    }

    private final java.util.concurrent.atomic.AtomicLong cfiErrors = new java.util.concurrent.atomic.AtomicLong();
    private volatile String lastCfiError;

    /** How many lookups met a malformed FDE, and the last such error (diagnostics). */
    public long cfiErrors() { return cfiErrors.get(); }

    public Optional<String> lastCfiError() { return Optional.ofNullable(lastCfiError); }

    /**
     * The executable mapping holding {@code ip}, re-reading the maps once if none does — unless
     * {@code ip} cannot be code: outside user space (small integers, kernel addresses), which
     * frame-pointer walks through Java frames meet as garbage return addresses; each re-read of a
     * JVM's maps costs about a millisecond.
     */
    public Optional<NativeMapping> nativeMapping(long ip) {
        Snapshot s = snapshot;
        if (s == null) s = rescan();
        NativeMapping m = find(s, ip);
        if (m == null && mayBeNewCode(s, ip) && System.nanoTime() - lastScan >= minRescanNanos) m = find(rescan(), ip);
        return Optional.ofNullable(m);
    }

    /**
     * Only addresses outside user space are ruled out: a library loaded later may reuse the range of
     * a data mapping the last read saw (freed arenas, thread stacks), so those must still re-read.
     */
    private static boolean mayBeNewCode(Snapshot s, long ip) {
        return Long.compareUnsigned(ip, MIN_CODE) >= 0 && Long.compareUnsigned(ip, USER_END) < 0;
    }

    /** Re-reads the mappings now. */
    public void refresh() { rescan(); }

    /** How many times the mappings were read (for tests and diagnostics). */
    public int scans() { return scans; }

    /** The modules known so far, one per mapped file. */
    public synchronized List<NativeModule> modules() { return new ArrayList<>(modules.values()); }

    private static NativeMapping find(Snapshot s, long ip) {
        int i = indexOf(s.starts, s.ends, ip);
        return i < 0 ? null : s.mappings[i];
    }

    /** The range of sorted, disjoint {@code [starts[i], ends[i])} holding {@code ip}, or -1. */
    private static int indexOf(long[] starts, long[] ends, long ip) {
        int lo = 0, hi = starts.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(ip, starts[mid]) < 0) hi = mid - 1;
            else if (Long.compareUnsigned(ip, ends[mid]) >= 0) lo = mid + 1;
            else return mid;
        }
        return -1;
    }

    private synchronized Snapshot rescan() {
        List<ProcMaps.Mapping> read;
        try {
            read = maps.get();
        } catch (java.io.UncheckedIOException e) {
            // The process has exited (another process's maps): keep what was known.
            if (snapshot == null) throw e;
            lastScan = System.nanoTime();
            return snapshot;
        }
        List<NativeMapping> exec = new ArrayList<>();
        List<ProcMaps.Mapping> data = new ArrayList<>();
        for (ProcMaps.Mapping m : read) {
            if (!m.executable()) {
                data.add(m);
                continue;
            }
            NativeModule module = null;
            if (m.fileBacked()) {
                String mapFiles = String.format("%s/map_files/%x-%x", procDir, m.start(), m.end());
                // One module per file: the same path with another device or inode is a different file.
                module = modules.computeIfAbsent(m.dev() + ":" + m.inode() + ":" + m.path(), k -> new NativeModule(m.path(), mapFiles));
            }
            exec.add(new NativeMapping(m, module));
        }
        exec.sort((a, b) -> Long.compareUnsigned(a.mapping().start(), b.mapping().start()));
        long[] starts = new long[exec.size()], ends = new long[exec.size()];
        for (int i = 0; i < exec.size(); i++) {
            starts[i] = exec.get(i).mapping().start();
            ends[i] = exec.get(i).mapping().end();
        }
        data.sort((a, b) -> Long.compareUnsigned(a.start(), b.start()));
        long[] dataStarts = data.stream().mapToLong(ProcMaps.Mapping::start).toArray();
        long[] dataEnds = data.stream().mapToLong(ProcMaps.Mapping::end).toArray();
        Snapshot s = new Snapshot(starts, ends, exec.toArray(new NativeMapping[0]), dataStarts, dataEnds);
        snapshot = s;
        lastScan = System.nanoTime();
        scans++;
        return s;
    }
}
