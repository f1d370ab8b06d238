package dev.bpf4j.jit;

import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.jit.I.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engines keep the last run's region table when the next run's regions are equal, even in a new
 * list (a caller that builds a RunContext per run): every run must still see exactly its own regions.
 */
class RegionRebindTest {
    /** r0 = *(u64 *)(r1 + 0) + *(u64 *)(r1 + 56): the first and last words of a 64-byte buffer. */
    private static final Program READ = prog("read", ldx(DW, 0, 1, 0), ldx(DW, 2, 1, 56), alu64r(ADD, 0, 2), exit());

    private static RunContext context(long at, MemoryRegion... regions) {
        RunContext.Builder b = RunContext.builder().arg(1, at);
        for (MemoryRegion r : regions) b.region(r);
        return b.build();
    }

    private static List<String> runs(Engine engine, long a, long b) {
        MemoryRegion ra = new MemoryRegion("buf", a, 64, false), rb = new MemoryRegion("buf", b, 64, false);
        MemoryRegion shortA = new MemoryRegion("buf", a, 56, false);
        List<RunContext> contexts = List.of(
                context(a, ra), context(a, new MemoryRegion("buf", a, 64, false)), // equal regions, new lists
                context(b, rb),          // same name and size, another buffer
                context(a, rb),          // a's address with only b's region: out of bounds
                context(a, ra, rb), context(b, ra, rb), context(b, rb, ra),
                context(a, shortA),      // the last word is past the region
                context(a, ra));
        List<String> out = new ArrayList<>();
        try (Executable x = engine.load(READ, LoadOptions.defaults())) {
            for (RunContext c : contexts) {
                try {
                    out.add(Long.toString(x.run(c)));
                } catch (BpfRuntimeException e) {
                    out.add(e.kind() + "@" + e.pc());
                }
            }
        }
        return out;
    }

    @Test
    void eachRunSeesItsOwnRegionsOnBothEngines() {
        long a = NativeMemory.allocate(64), b = NativeMemory.allocate(64);
        try {
            NativeMemory.setMemory(a, 64, (byte) 0);
            NativeMemory.setMemory(b, 64, (byte) 0);
            NativeMemory.putLong(a, 1);
            NativeMemory.putLong(a + 56, 2);
            NativeMemory.putLong(b, 10);
            NativeMemory.putLong(b + 56, 20);
            List<String> interp = runs(Both.INTERP, a, b), jit = runs(Jit.ENGINE, a, b);
            assertThat(interp).as("interpreter vs JIT").isEqualTo(jit);
            assertThat(jit).containsExactly("3", "3", "30", "OUT_OF_BOUNDS@0", "3", "30", "30", "OUT_OF_BOUNDS@1", "3");
        } finally {
            NativeMemory.free(a);
            NativeMemory.free(b);
        }
    }
}
