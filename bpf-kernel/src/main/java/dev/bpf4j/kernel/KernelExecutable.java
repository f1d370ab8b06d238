package dev.bpf4j.kernel;

import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.RunContext;

import java.util.HashMap;
import java.util.Map;

/**
 * A program prepared for the kernel engine. The kernel program depends on the run's memory layout
 * (region sizes and where the entry registers point, see {@link RunLayout}), so it is loaded —
 * and verified by the kernel — at the first run with each layout and kept for later runs. A kernel
 * refusal is therefore thrown by {@link #run} (or earlier by {@link #prepare}) as
 * {@link KernelRejectedException}, a {@link dev.bpf4j.runtime.BpfLoadException}.
 *
 * <p>Runs are serialised: the mirrored memory lives in kernel maps shared by all runs of one layout.
 */
public final class KernelExecutable implements Executable {
    private final Program program;
    private final int entryArgs;
    private final Map<RunLayout.Key, KernelImage> images = new HashMap<>();
    private final Map<RunLayout.Key, KernelImage> timingImages = new HashMap<>();
    private boolean closed;

    KernelExecutable(Program program, int entryArgs) {
        this.program = program;
        this.entryArgs = entryArgs;
    }

    @Override public Program program() { return program; }

    /** Loads the kernel program for {@code context}'s layout without running it; throws {@link KernelRejectedException} when the kernel refuses. */
    public synchronized void prepare(RunContext context) { image(RunLayout.of(context, entryArgs)); }

    /** The program the kernel received for {@code context}'s layout (prologue and epilogue included). */
    public synchronized Program translated(RunContext context) { return image(RunLayout.of(context, entryArgs)).translated(); }

    /** What the kernel reports about the program loaded for {@code context}'s layout (its tag, sizes). */
    public synchronized ProgInfo info(RunContext context) { return image(RunLayout.of(context, entryArgs)).info(); }

    @Override public synchronized long run(RunContext context) {
        RunLayout layout = RunLayout.of(context, entryArgs);
        return image(layout).run(program.name(), layout.regions());
    }

    /**
     * Runs the program {@code repeat} times inside one BPF_PROG_TEST_RUN and returns the last r0 and
     * the kernel's average time per run, which leaves out the system call and the memory copies:
     * what the kernel's JIT costs per run. The program is loaded a second time for this, as an XDP
     * program (syscall programs cannot be repeated); each run sees the memory the previous run left.
     */
    public synchronized KernelTiming time(RunContext context, int repeat) {
        if (repeat < 1) throw new IllegalArgumentException("repeat must be >= 1, not " + repeat);
        if (closed) throw new IllegalStateException("program '" + program.name() + "': the kernel executable is closed");
        RunLayout layout = RunLayout.of(context, entryArgs);
        KernelImage image = timingImages.get(layout.key());
        if (image == null) {
            image = KernelImage.loadForTiming(program, layout.key());
            timingImages.put(layout.key(), image);
        }
        return image.time(program.name(), layout.regions(), repeat);
    }

    private KernelImage image(RunLayout layout) {
        if (closed) throw new IllegalStateException("program '" + program.name() + "': the kernel executable is closed");
        KernelImage image = images.get(layout.key());
        if (image == null) {
            image = KernelImage.load(program, layout.key());
            images.put(layout.key(), image);
        }
        return image;
    }

    @Override public synchronized void close() {
        if (closed) return;
        closed = true;
        images.values().forEach(KernelImage::close);
        images.clear();
        timingImages.values().forEach(KernelImage::close);
        timingImages.clear();
    }
}
