package dev.bpf4j.kernel;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * One program loaded into the kernel for one {@link RunLayout.Key}: an array map (one element)
 * mirroring each region, a map holding r0, and the translated program, as BPF_PROG_TYPE_SYSCALL
 * ({@link #load}) or, for timing, as BPF_PROG_TYPE_XDP ({@link #loadForTiming}): syscall programs
 * refuse BPF_PROG_TEST_RUN's {@code repeat}, XDP programs take it and the kernel then reports the
 * average time of one run. The translated program ignores its context either way. A run copies the
 * regions into their maps, runs the program with BPF_PROG_TEST_RUN and copies the writable regions
 * and r0 back.
 */
final class KernelImage implements AutoCloseable {
    private final List<KernelMap> regionMaps;
    private final KernelMap r0Map;
    private final KernelProgram program;
    private final Program translated;

    private KernelImage(List<KernelMap> regionMaps, KernelMap r0Map, KernelProgram program, Program translated) {
        this.regionMaps = regionMaps;
        this.r0Map = r0Map;
        this.program = program;
        this.translated = translated;
    }

    /** Bytes of the dummy packet a timing run passes (XDP test runs need at least an Ethernet header). */
    static final int TIMING_PACKET = 64;

    /** Loads {@code source} for {@code layout}; a verifier refusal becomes {@link KernelRejectedException}. */
    static KernelImage load(Program source, RunLayout.Key layout) { return load(source, layout, false); }

    /** As {@link #load}, as an XDP program so that BPF_PROG_TEST_RUN can repeat it ({@link #time}). */
    static KernelImage loadForTiming(Program source, RunLayout.Key layout) { return load(source, layout, true); }

    private static KernelImage load(Program source, RunLayout.Key layout, boolean xdp) {
        List<KernelMap> maps = new ArrayList<>();
        try {
            for (RunLayout.Shape s : layout.regions()) {
                if (s.length() > Integer.MAX_VALUE) throw new KernelLoadException("program '" + source.name() + "': a " + s.length() + "-byte region is too large for an array map value");
                maps.add(KernelMap.array("bpf4j_mem" + maps.size(), (int) s.length(), 1, s.writable() ? 0 : BpfSyscall.BPF_F_RDONLY_PROG));
            }
            KernelMap r0 = KernelMap.array("bpf4j_r0", 8, 1, 0);
            maps.add(r0);
            int[] fds = maps.stream().mapToInt(KernelMap::fd).toArray();
            Program translated = new Program(source.name(), List.of(KernelTranslation.translate(source, layout, fds, r0.fd())));
            KernelProgram prog;
            try {
                byte[] insns = Insn.encodeAll(translated.toArray());
                prog = KernelProgram.load(xdp ? ProgLoadRequest.of(ProgLoadRequest.BPF_PROG_TYPE_XDP, source.name(), insns)
                        : ProgLoadRequest.syscall(source.name(), insns));
            } catch (KernelBpfException e) {
                throw new KernelRejectedException(source.name(), e);
            }
            return new KernelImage(List.copyOf(maps.subList(0, maps.size() - 1)), r0, prog, translated);
        } catch (RuntimeException e) {
            maps.forEach(KernelMap::close);
            throw e;
        }
    }

    /** Runs once with {@code regions} (in layout order) as memory; returns the full 64-bit r0. */
    long run(String name, List<MemoryRegion> regions) {
        return run(name, regions, TestRunRequest.empty()).r0();
    }

    /**
     * Runs {@code repeat} times in one BPF_PROG_TEST_RUN (an image from {@link #loadForTiming}); each
     * run sees the memory the previous one left. The kernel times the loop around the runs, so the
     * average excludes the system call and the copies of the memory.
     */
    KernelTiming time(String name, List<MemoryRegion> regions, int repeat) {
        return run(name, regions, new TestRunRequest(new byte[TIMING_PACKET], 0, null, 0, repeat));
    }

    private KernelTiming run(String name, List<MemoryRegion> regions, TestRunRequest request) {
        byte[] key = KernelMap.index(0);
        for (int i = 0; i < regions.size(); i++) {
            MemoryRegion r = regions.get(i);
            regionMaps.get(i).update(key, NativeMemory.read(r.start(), (int) r.length()), BpfSyscall.BPF_ANY);
        }
        r0Map.update(key, new byte[8], BpfSyscall.BPF_ANY);
        TestRunResult result = program.testRun(request);
        long r0 = ByteBuffer.wrap(r0Map.lookup(key)).order(ByteOrder.LITTLE_ENDIAN).getLong();
        if ((int) r0 != result.retval()) {
            throw new IllegalStateException("program '" + name + "': the epilogue stored r0 = 0x" + Long.toHexString(r0)
                    + " but BPF_PROG_TEST_RUN returned retval 0x" + Integer.toHexString(result.retval())
                    + ": some path left the program without passing the epilogue");
        }
        for (int i = 0; i < regions.size(); i++) {
            MemoryRegion r = regions.get(i);
            if (!r.writable()) continue;
            byte[] back = regionMaps.get(i).lookup(key);
            NativeMemory.write(r.start(), back, 0, back.length);
        }
        return new KernelTiming(r0, result.duration() & 0xffffffffL);
    }

    /** The program as the kernel received it (prologue, epilogue, rewritten exits). */
    Program translated() { return translated; }

    ProgInfo info() { return program.info(); }

    @Override public void close() {
        program.close();
        regionMaps.forEach(KernelMap::close);
        r0Map.close();
    }
}
