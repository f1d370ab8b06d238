package dev.bpf4j.cli.profile;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Type;
import dev.bpf4j.jit.probe.NativeProbes;
import dev.bpf4j.jit.probe.ProbeLink;
import dev.bpf4j.jit.probe.ProbeProgram;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.unwind.CodeMap;
import dev.bpf4j.unwind.CodeRegion;
import dev.bpf4j.unwind.Symbolizer;
import dev.bpf4j.unwind.profile.FoldedStacks;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;

/**
 * The demo's second path into the chain: Java calls {@value #WORK} of the bundled native library
 * (cli/src/main/native, extracted from the jar at run time: no gcc needed) through jffi, and that
 * calls {@value #PROBED}, on which {@link SubprogramChain#probeProgram()} is attached as a native
 * probe. A sample inside it unwinds as Java → jffi → {@value #WORK} → {@value #PROBED} →
 * {@code bpf_trampoline_}{@value #PROBED} → main → sub1 → sub2 → sub3.
 */
public final class NativeChainProbe implements AutoCloseable {
    static final String RESOURCE = "/dev/bpf4j/cli/native/libbpf4j_demo.so";
    public static final String WORK_SYMBOL = "demo_native_work";
    static final String WORK = WORK_SYMBOL;
    public static final String PROBED_SYMBOL = "demo_native_mix";
    static final String PROBED = PROBED_SYMBOL;
    /** Probe hits per call from Java: 4 × 25 chain iterations, as many as one Java run's 100. */
    static final long ROUNDS_PER_CALL = 4;

    private static final CallContext LONG_OF_LONG =
            CallContext.getCallContext(Type.SINT64, new Type[] {Type.SINT64}, CallingConvention.DEFAULT, false);

    private final Executable program;
    private final ProbeLink link;
    private final long work;

    private NativeChainProbe(Executable program, ProbeLink link, long work) {
        this.program = program;
        this.link = link;
        this.work = work;
    }

    /** Extracts the library, loads the probe program on {@code engine} and attaches it; a clear error when refused. */
    public static NativeChainProbe attach(Engine engine) {
        Path lib = extract();
        long work = NativeProbes.address(lib.toString(), WORK);
        Executable exe = engine.load(SubprogramChain.probeProgram(), LoadOptions.defaults());
        try {
            ProbeLink link = NativeProbes.attach(lib.toString(), PROBED, ProbeProgram.of(exe, List.of()));
            return new NativeChainProbe(exe, link, work);
        } catch (RuntimeException e) {
            exe.close();
            throw e;
        }
    }

    /** One call from Java into the library: {@link #ROUNDS_PER_CALL} hits of the probe. */
    public long call() {
        return Invoker.getInstance().invokeN1(LONG_OF_LONG, work, ROUNDS_PER_CALL);
    }

    public Executable program() { return program; }

    public long hits() { return link.hits(); }

    public long errors() { return link.errors(); }

    /**
     * How exact the chains of samples in the probe's copy of the chain are: in the trampoline or in
     * the probe program's main and subprograms (JIT only; null for other engines), each of which must
     * unwind through the functions below it, the trampoline, {@value #PROBED} (the frame the
     * trampoline builds for the traced function) and {@value #WORK}, then leave them.
     */
    public static ChainAccuracy accuracy(NativeChainProbe probe) {
        List<CodeRegion> jit = ProfileSession.chainFunctions(probe.program());
        if (jit.isEmpty()) return null;
        CodeRegion trampoline = CodeMap.global().regions().stream().filter(r -> r.symbol().equals(trampolineFrame())).findFirst()
                .orElseThrow(() -> new IllegalStateException("no code region " + trampolineFrame()));
        List<CodeRegion> functions = new java.util.ArrayList<>();
        functions.add(trampoline);
        functions.addAll(jit);
        return new ChainAccuracy(functions, List.of(returnsInto(PROBED), returnsInto(WORK)));
    }

    private static java.util.function.LongPredicate returnsInto(String symbol) {
        return ra -> symbol.equals(Symbolizer.global().symbolizeReturnAddress(ra).symbol());
    }

    /** The frame a sample through the probe has right below the program's main. */
    public static String trampolineFrame() { return "bpf_trampoline_" + PROBED; }

    /**
     * Samples whose stack went Java → {@value #WORK} → {@value #PROBED} → the trampoline → the probe
     * program's main, those frames in that order from the root (other frames between them allowed).
     */
    public static long samplesThroughProbe(FoldedStacks stacks) {
        List<String> path = List.of(WORK, PROBED, trampolineFrame());
        long n = 0;
        for (Map.Entry<List<String>, Long> e : stacks.counts().entrySet()) {
            List<String> frames = e.getKey();
            int at = 0;
            for (String f : frames) {
                if (at < path.size() ? f.equals(path.get(at)) : f.endsWith("_" + SubprogramChain.PROBE_NAME)) at++;
                if (at > path.size()) break;
            }
            if (at > path.size()) n += e.getValue();
        }
        return n;
    }

    @Override public void close() {
        link.close();
        program.close();
    }

    private static Path extract() {
        try (InputStream in = NativeChainProbe.class.getResourceAsStream(RESOURCE)) {
            if (in == null) throw new IllegalStateException("the demo's native library " + RESOURCE + " is missing from the class path");
            Path dir = Files.createTempDirectory("bpf4j-demo-");
            Path so = dir.resolve("libbpf4j_demo.so");
            Files.copy(in, so, StandardCopyOption.REPLACE_EXISTING);
            so.toFile().deleteOnExit();
            dir.toFile().deleteOnExit();
            return so;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
