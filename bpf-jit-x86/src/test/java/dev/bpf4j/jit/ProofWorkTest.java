package dev.bpf4j.jit;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.analysis.RegionProof;
import dev.bpf4j.analysis.StackProof;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Random;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.jit.I.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Loops whose bounds grow by {@code 0xffffffff} per iteration: with {@code Long.hashCode} the
 * halves of {@code k * 0xffffffff} cancel, all those states shared a hash, and the proofs compared
 * each new state with thousands of explored ones. Such {@link UnvalidatedFuzzTest} seeds took a
 * minute to load; the proofs now count those comparisons as steps, and a good hash keeps them rare.
 */
class ProofWorkTest {
    private static final int LEN = 16;

    /** The UnvalidatedFuzzTest seeds that took longest (they read uninitialised registers: no engine comparison). */
    @ParameterizedTest
    @ValueSource(longs = {2898, 539, 2124, 1322, 2267})
    void worstFuzzSeedsCompareFewStatesInVain(long seed) {
        long mem = NativeMemory.allocate(64);
        try {
            Insn[] insns = UnvalidatedFuzzTest.generate(new Random(seed), mem).toArray();
            assertThat(hasLocalCalls(insns)).as("one function: these are the JIT's explorations").isFalse();
            StackProof.Budget budget = new StackProof.Budget();
            StackProof.provenAccesses(insns, 0, insns.length, budget);
            RegionProof.provenAccesses(insns, 0, insns.length, budget);
            assertThat(budget.comparedInVain()).as("seed %d: explored states compared in vain", seed).isLessThan(100);
        } finally {
            NativeMemory.free(mem);
        }
    }

    /** r7 += 0xffffffff a thousand times, then stored through a copy of r10: proven, and both engines agree. */
    @Test
    void storeAfterACollidingCounterLoopIsProvenAndRunsTheSame() {
        long step = 0xffffffffL;
        Program p = prog("colliding", lddw(9, step), lddw(5, 1000 * step), mov64(7, 0), mov64r(2, 10),
                alu64r(ADD, 7, 9), jmpr(JLT, 7, 5, -2),             // pc 6, 7
                stx(DW, 2, 7, -8),                                  // pc 8
                ldx(DW, 0, 10, -8), exit());
        assertThat(Jit.LOADER.compile(p, LoadOptions.defaults()).proofs().uncheckedPcs()).contains(8);
        long mem = NativeMemory.allocate(LEN);
        try {
            String[] o = Both.compare(p, LoadOptions.defaults(),
                    () -> RunContext.builder().arg(1, mem).region(new MemoryRegion("m", mem, LEN, true)).build(),
                    mem, LEN, () -> NativeMemory.write(mem, new byte[LEN], 0, LEN));
            assertThat(o[0]).startsWith("r0=" + Long.toHexString(1000 * step) + " ");
            assertThat(o[1]).as("jit vs interpreter").isEqualTo(o[0]);
        } finally {
            NativeMemory.free(mem);
        }
    }

    private static boolean hasLocalCalls(Insn[] insns) {
        for (Insn i : insns) if (i.opcode() == (Opcodes.JMP | Opcodes.CALL) && i.src() == Opcodes.PSEUDO_CALL) return true;
        return false;
    }
}
