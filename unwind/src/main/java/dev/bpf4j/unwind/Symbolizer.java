package dev.bpf4j.unwind;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Names instruction pointers: synthetic Java frames first ({@link SyntheticFrames}), then the JIT's
 * regions ({@link CodeMap}: {@code module!bpf_prog_<tag>_<name>+0xoff}), then native modules
 * through their ELF symbols ({@code libc.so.6!malloc+0x1a}), then code without a file through the
 * process's perf map when it has one ({@link PerfMapFile}: another JVM's compiled Java, or this JVM's
 * own from {@link JvmPerfMap} through {@link #withPerfMap}); anything else is {@code [unknown]}.
 */
public final class Symbolizer {
    private static final Symbolizer GLOBAL = new Symbolizer(ProcessCode.global(), SyntheticFrames.global());

    private final ProcessCode code;
    private final SyntheticFrames synthetic;
    /** Names code without a file: {@link ProcessCode#perfMap()} unless given. */
    private final Optional<PerfMapFile> perfMap;

    public Symbolizer(ProcessCode code, SyntheticFrames synthetic) { this(code, synthetic, code.perfMap()); }

    private Symbolizer(ProcessCode code, SyntheticFrames synthetic, Optional<PerfMapFile> perfMap) {
        this.code = code;
        this.synthetic = synthetic;
        this.perfMap = perfMap;
    }

    /** The same, naming anonymous code (this JVM's, say) from {@code map}. */
    public Symbolizer withPerfMap(PerfMapFile map) { return new Symbolizer(code, synthetic, Optional.of(map)); }

    public static Symbolizer global() { return GLOBAL; }

    public Frame symbolize(long ip) {
        if (SyntheticFrames.isSynthetic(ip)) {
            return synthetic.lookup(ip).map(f -> new Frame(ip, null, f.toString(), 0)).orElse(Frame.unknown(ip));
        }
        Optional<CodeRegion> jit = code.jitRegion(ip);
        if (jit.isPresent()) {
            CodeRegion r = jit.get();
            return new Frame(ip, r.module(), r.symbol(), ip - r.start());
        }
        Optional<ProcessCode.NativeMapping> m = code.nativeMapping(ip);
        NativeModule module = m.map(ProcessCode.NativeMapping::module).orElse(null);
        if (module == null && perfMap.isPresent()) {
            FunctionSymbols.Hit hit = perfMap.get().lookup(ip);
            if (hit != null) return new Frame(ip, perfMap.get().path().getFileName().toString(), hit.name(), hit.offset());
        }
        if (m.isEmpty()) return Frame.unknown(ip);
        if (module == null) {
            // Anonymous code (the JVM's code cache, [vdso]): name the mapping, offset from its start.
            String name = m.get().mapping().path().isEmpty() ? "[anon:exec]" : m.get().mapping().path();
            return new Frame(ip, name, null, ip - m.get().mapping().start());
        }
        long vaddr = ip - m.get().bias();
        FunctionSymbols.Hit hit = module.symbols().lookup(vaddr);
        return hit == null ? new Frame(ip, module.name(), null, vaddr) : new Frame(ip, module.name(), hit.name(), hit.offset());
    }

    public List<Frame> symbolize(List<Long> ips) {
        List<Frame> out = new ArrayList<>(ips.size());
        for (long ip : ips) out.add(symbolize(ip));
        return out;
    }

    /**
     * Names a return address: the call sits just before it, so {@code ip - 1} is looked up (a
     * call as a function's last instruction would otherwise be named after the next function),
     * and the frame keeps {@code ip}.
     */
    public Frame symbolizeReturnAddress(long ip) {
        Frame f = symbolize(ip - 1);
        return f.known() ? new Frame(ip, f.module(), f.symbol(), f.offset() + 1) : Frame.unknown(ip);
    }

    /**
     * A trace innermost first: the first ip is where the thread was, the others return addresses
     * (named through {@link #symbolizeReturnAddress}).
     */
    public List<Frame> symbolize(StackTrace trace) {
        List<Frame> out = new ArrayList<>(trace.ips().size());
        for (int i = 0; i < trace.ips().size(); i++) {
            long ip = trace.ips().get(i);
            out.add(i == 0 || SyntheticFrames.isSynthetic(ip) ? symbolize(ip) : symbolizeReturnAddress(ip));
        }
        return out;
    }
}
