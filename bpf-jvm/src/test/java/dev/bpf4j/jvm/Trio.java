package dev.bpf4j.jvm;

import dev.bpf4j.interp.InterpreterEngine;
import dev.bpf4j.jit.JitEngine;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.runtime.BpfException;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs one program on the interpreter, the JIT and the JVM engine and demands the same outcome:
 * r0, or the error's kind, pc and (inside the memory block) address; and the memory block's bytes.
 */
final class Trio {
    private Trio() {}

    static final List<Engine> ENGINES = List.of(new InterpreterEngine(), new JitEngine(), new JvmEngine());

    /** What a run shows: r0 or an error, and the memory block afterwards. */
    record Outcome(String engine, Long r0, String error, byte[] mem) {
        String comparable() {
            return (r0 != null ? "r0=" + r0 : "error=" + error) + " mem=" + Arrays.toString(mem);
        }
    }

    /** The conformance convention: r1 = a writable block holding {@code mem} (0 when null), r2 = its length; verified. */
    static Outcome agree(Program p, byte[] mem) { return agree(p, mem, LoadOptions.defaults().withEntryArgs(2), true, 1_000_000); }

    static Outcome agree(Program p, byte[] mem, LoadOptions o, boolean verify, long budget) {
        return agree(ENGINES, e -> runOn(e, p, mem, o, verify, budget));
    }

    static Outcome agree(List<Engine> engines, Function<Engine, Outcome> run) {
        List<Outcome> out = new ArrayList<>();
        for (Engine e : engines) out.add(run.apply(e));
        for (Outcome o : out.subList(1, out.size())) {
            assertThat(o.comparable()).as("%s vs %s", o.engine(), out.get(0).engine()).isEqualTo(out.get(0).comparable());
        }
        return out.get(0);
    }

    static Outcome runOn(Engine e, Program p, byte[] mem, LoadOptions o, boolean verify, long budget) {
        int len = mem == null ? 0 : mem.length;
        long block = len == 0 ? 0 : NativeMemory.allocate(len);
        try {
            if (len > 0) NativeMemory.write(block, mem, 0, len);
            RunContext.Builder ctx = RunContext.builder().budget(budget);
            if (len > 0) ctx.region(new MemoryRegion("mem", block, len, true)).arg(1, block).arg(2, len);
            Long r0 = null;
            String error = null;
            try (Executable x = verify ? Bpf.load(p, e, o) : e.load(p, o)) {
                r0 = x.run(ctx.build());
            } catch (BpfRuntimeException ex) {
                long a = ex.address();
                String where = a >= block && a < block + len ? " at +" + (a - block) : "";
                error = ex.kind() + " pc " + ex.pc() + where;
            } catch (BpfException ex) {
                error = ex.getClass().getSimpleName() + ": " + ex.getMessage();
            }
            byte[] after = len == 0 ? new byte[0] : NativeMemory.read(block, len);
            return new Outcome(e.name(), r0, error, after);
        } finally {
            NativeMemory.free(block);
        }
    }
}
