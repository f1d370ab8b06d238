package dev.bpf4j.fuzz;

import dev.bpf4j.engine.Bpf;
import dev.bpf4j.runtime.BpfException;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;

import java.util.function.Supplier;

/**
 * Loads a {@link FuzzCase} the normal way ({@link Bpf#load}: whatever gate exists is applied) on one
 * engine and runs it twice (see {@link EngineOutcome}). A refused load is {@link Observation.Verdict#REJECTED};
 * any exception that is not a {@link BpfException} is {@link Observation.Verdict#CRASHED}.
 */
public final class Execution {
    private Execution() {}

    /** Extra bytes before the second run's block: moves it to another address with the same alignment mod 64. */
    static final int SECOND_RUN_SHIFT = 64;
    /** Extra Java frames under the second run: moves the native stack. */
    static final int SECOND_RUN_DEPTH = 40;

    public static EngineOutcome run(Engine engine, FuzzCase c) { return run(engine, c, FuzzConventions.loadOptions()); }

    public static EngineOutcome run(Engine engine, FuzzCase c, LoadOptions options) {
        if (engine.verifiesItself()) return KernelExecution.run(engine, c, options);
        if (c.isObject()) return ObjectExecution.run(engine, c);
        Executable exe;
        long start = System.nanoTime();
        try {
            exe = Bpf.load(c.program(), engine, FuzzConventions.forCase(options, c.mem() != null));
        } catch (BpfException e) {
            return new EngineOutcome(engine.name(), Observation.rejected(e.getMessage()), null);
        } catch (RuntimeException | LinkageError | StackOverflowError | AssertionError e) {
            return new EngineOutcome(engine.name(), Observation.crashed(e), null);
        }
        long loadNanos = System.nanoTime() - start;
        try (exe) {
            Observation first = runOnce(exe, c.mem(), 0);
            Observation second = atDepth(SECOND_RUN_DEPTH, () -> runOnce(exe, c.mem(), SECOND_RUN_SHIFT));
            return new EngineOutcome(engine.name(), first, second, loadNanos);
        } catch (RuntimeException | LinkageError | StackOverflowError | AssertionError e) {
            return new EngineOutcome(engine.name(), Observation.crashed(e), null);
        }
    }

    /**
     * Bytes of our own allocation on each side of the block: whatever an engine allocates itself (the
     * interpreter's stack, ...) is never within this distance, so {@link Addresses} can name every
     * address this close to the block relative to it without mistaking a neighbour for it.
     */
    static final int GUARD = (int) Addresses.NEAR;

    static Observation runOnce(Executable exe, byte[] mem, int shift) {
        long block = 0, base = 0;
        int len = mem == null ? 0 : mem.length;
        try {
            if (mem != null) {
                block = NativeMemory.allocate(len + 2L * GUARD + shift);
                base = block + GUARD + shift;
                NativeMemory.write(base, mem, 0, len);
            }
            RunContext.Builder ctx = RunContext.builder().arg(1, base).arg(2, len).budget(FuzzConventions.BUDGET);
            if (len > 0) ctx.region(new MemoryRegion("mem", base, len, true));
            try {
                long r0 = exe.run(ctx.build());
                return Observation.returned(r0, contents(base, len));
            } catch (BpfRuntimeException e) {
                return Observation.failed(e.kind(), e.pc(), Addresses.describe(e.address(), base, len), contents(base, len), e.getMessage());
            } catch (BpfLoadException e) { // an engine that verifies at the first run (the kernel) refused it
                return Observation.rejected(e.getClass().getSimpleName() + ": " + e.getMessage());
            } catch (BpfException e) {
                return Observation.failedOtherwise(e, contents(base, len));
            } catch (RuntimeException | LinkageError | StackOverflowError | AssertionError e) {
                return Observation.crashed(e);
            }
        } finally {
            NativeMemory.free(block);
        }
    }

    private static byte[] contents(long base, int len) { return len == 0 ? new byte[0] : NativeMemory.read(base, len); }

    /** Runs {@code body} under {@code n} more Java frames. */
    static <T> T atDepth(int n, Supplier<T> body) {
        if (n == 0) return body.get();
        long[] pad = new long[4];
        pad[n & 3] = n;
        T t = atDepth(n - 1, body);
        return pad[n & 3] == n ? t : null;
    }
}
