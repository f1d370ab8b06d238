package dev.bpf4j.jit;

import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.jit.I.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Memory checks the JIT leaves out (StackProof) and the ones it must keep. Every program runs on
 * the interpreter and the JIT with several inputs (the u64 at r1) and must give the same r0 or
 * the same error kind at the same pc; proven accesses must be emitted without a check, unprovable
 * ones (off by one, signed bounds, 32-bit wrap-around, a clobbered spill, one bad path, a loop
 * the exploration cannot finish) with one.
 */
class StackProofTest {
    private long mem;

    @BeforeEach void alloc() { mem = NativeMemory.allocate(16); }

    @AfterEach void free() { NativeMemory.free(mem); }

    private String[] both(Program p, long input) {
        NativeMemory.putLong(mem, input);
        NativeMemory.putLong(mem + 8, 0);
        return Both.compare(p, LoadOptions.defaults(),
                () -> RunContext.builder().arg(1, mem).region(new MemoryRegion("in", mem, 16, false)).build(), mem, 16, () -> {
                    NativeMemory.putLong(mem, input);
                });
    }

    private String same(Program p, long input) {
        String[] o = both(p, input);
        assertThat(o[1]).as("%s with input %d: jit vs interpreter", p.name(), input).isEqualTo(o[0]);
        return o[0];
    }

    private static int[] unchecked(Program p) { return Jit.LOADER.compile(p, LoadOptions.defaults()).proofs().uncheckedPcs(); }

    /** Bytes of machine code the slot at pc compiled to. */
    private static int codeBytes(Program p, int pc) {
        int[] off = Jit.LOADER.compile(p, LoadOptions.defaults()).layout().pcOffsets();
        return off[pc + 1] - off[pc];
    }

    /** a[i] = i for u32 a[64] at r10 - 256, i from 0 while {@code i REL bound}. */
    private static Program fill(int rel, int bound) {
        return prog("fill", mov64(1, 0), mov64r(2, 10), alu64(ADD, 2, -256),
                mov64r(3, 1), alu64(LSH, 3, 2), mov64r(4, 2), alu64r(ADD, 4, 3),
                stx(W, 4, 1, 0),                                  // pc 7
                alu64(ADD, 1, 1), jmp(rel, 1, bound, -7),
                ldx(W, 0, 10, -4), exit());
    }

    @Test
    void boundedLoopOverAStackArrayIsProvenAndUnchecked() {
        Program p = fill(JLT, 64);
        assertThat(unchecked(p)).containsExactly(7);
        assertThat(codeBytes(p, 7)).as("a plain mov, no check").isLessThanOrEqualTo(4);
        assertThat(same(p, 0)).isEqualTo("r0=3f mem=" + hex(0, 0));
    }

    @Test
    void offByOnePastTheFrameKeepsTheCheck() {
        Program p = fill(JLE, 64); // writes a[64], which is r10 + 0: outside the frame
        assertThat(unchecked(p)).isEmpty();
        assertThat(codeBytes(p, 7)).as("checked").isGreaterThan(20);
        assertThat(same(p, 0)).startsWith("r0=OUT_OF_BOUNDS@7");
    }

    @Test
    void descendingIndexOffByOneBelowTheFrame() {
        // u32 a[128] at r10 - 512, i from 127 down while i s>= bound
        for (int bound : new int[]{0, -1}) {
            Program p = prog("down", mov64(1, 127), mov64r(2, 10), alu64(ADD, 2, -512),
                    mov64r(3, 1), alu64(LSH, 3, 2), mov64r(4, 2), alu64r(ADD, 4, 3),
                    st(W, 4, 0, 9),                                   // pc 7
                    alu64(ADD, 1, -1), jmp(JSGE, 1, bound, -7),
                    mov64(0, 1), exit());
            if (bound == 0) {
                assertThat(unchecked(p)).containsExactly(7);
                assertThat(same(p, 0)).startsWith("r0=1 ");
            } else {
                assertThat(unchecked(p)).isEmpty(); // i = -1 reaches r10 - 516
                assertThat(same(p, 0)).startsWith("r0=OUT_OF_BOUNDS@7");
            }
        }
    }

    /** r6 = input; if r6 REL 255 goto out; byte at r10 - 256 + r6 = 1. */
    private static Program indexed(int rel) {
        return prog("idx", ldx(DW, 6, 1, 0), jmp(rel, 6, 255, 4), mov64r(2, 10), alu64(ADD, 2, -256),
                alu64r(ADD, 2, 6), st(B, 2, 0, 1), mov64(0, 0), exit());
    }

    @Test
    void unsignedBoundProvesAnUnknownIndexSignedDoesNot() {
        Program unsigned = indexed(JGT);
        assertThat(unchecked(unsigned)).containsExactly(5);
        for (long in : new long[]{0, 10, 255, 256, -1, -300}) same(unsigned, in);
        Program signed = indexed(JSGT); // negative inputs pass a signed bound
        assertThat(unchecked(signed)).isEmpty();
        for (long in : new long[]{0, 255, 256}) assertThat(same(signed, in)).startsWith("r0=0 ");
        assertThat(same(signed, -300)).startsWith("r0=OUT_OF_BOUNDS@5");
        assertThat(same(signed, -1)).startsWith("r0=0 "); // r10 - 257 is still in the frame
    }

    @Test
    void thirtyTwoBitWrapAroundIsNotABound() {
        // w6 = u32 input; if w6 > 255 goto out; w6 -= 1 (0 wraps to 0xffffffff); byte at r10 - 256 + r6
        Program wraps = prog("wrap", ldx(W, 6, 1, 0), jmp32(JGT, 6, 255, 5), alu32(SUB, 6, 1), mov64r(2, 10),
                alu64(ADD, 2, -256), alu64r(ADD, 2, 6), st(B, 2, 0, 1), mov64(0, 0), exit());
        assertThat(unchecked(wraps)).isEmpty();
        assertThat(same(wraps, 5)).startsWith("r0=0 ");
        assertThat(same(wraps, 0)).startsWith("r0=OUT_OF_BOUNDS@6");
        Program masked = prog("mask", ldx(W, 6, 1, 0), alu32(AND, 6, 255), mov64r(2, 10),
                alu64(ADD, 2, -256), alu64r(ADD, 2, 6), st(B, 2, 0, 1), mov64(0, 0), exit());
        assertThat(unchecked(masked)).containsExactly(5);
        for (long in : new long[]{0, 255, 256, -1}) same(masked, in);
    }

    @Test
    void pointerSpilledToTheStackAndReloaded() {
        Program kept = prog("spill", mov64r(2, 10), alu64(ADD, 2, -64), stx(DW, 10, 2, -8), ldx(DW, 3, 10, -8),
                st(W, 3, 4, 7), ldx(W, 0, 10, -60), exit());
        assertThat(unchecked(kept)).containsExactly(4);
        assertThat(same(kept, 0)).startsWith("r0=7 ");
        // Half of the spilled pointer overwritten: the reload is not a frame pointer any more.
        Program clobbered = prog("clobber", mov64r(2, 10), alu64(ADD, 2, -64), stx(DW, 10, 2, -8), st(W, 10, -8, 0),
                ldx(DW, 3, 10, -8), st(W, 3, 4, 7), ldx(W, 0, 10, -60), exit());
        assertThat(unchecked(clobbered)).isEmpty();
        assertThat(same(clobbered, 0)).startsWith("r0=OUT_OF_BOUNDS@5");
        // A helper call may write the frame: the spill is forgotten.
        Program called = prog("call", mov64r(6, 10), alu64(ADD, 6, -64), stx(DW, 10, 6, -8), call(Jit.DUMP),
                ldx(DW, 3, 10, -8), st(W, 3, 4, 7), st(W, 6, 0, 1), ldx(W, 0, 10, -60), exit());
        int[] pcs = Jit.LOADER.compile(called, LoadOptions.defaults().withHelpers(Jit.dumpHelper(new long[0]))).proofs().uncheckedPcs();
        assertThat(pcs).as("r6 survives the call, the reloaded slot does not").containsExactly(6);
    }

    @Test
    void oneBadPathKeepsTheCheck() {
        Program p = prog("paths", ldx(DW, 6, 1, 0), mov64r(2, 10), alu64(ADD, 2, -16), jmp(JEQ, 6, 0, 1),
                alu64(ADD, 2, -600), st(DW, 2, 0, 1), mov64(0, 0), exit());
        assertThat(unchecked(p)).isEmpty();
        assertThat(same(p, 0)).startsWith("r0=0 ");
        assertThat(same(p, 1)).startsWith("r0=OUT_OF_BOUNDS@5");
    }

    @Test
    void loopBoundedOnlyByAnUnknownCountIsNotProvenAndStillChecked() {
        // for (r0 = 0; r0 < input; r0++) *p++ = 1, p from r10 - 64: the exploration gives up
        Program p = prog("unknown", ldx(DW, 6, 1, 0), mov64r(2, 10), alu64(ADD, 2, -64), mov64(0, 0),
                jmpr(JGE, 0, 6, 4), st(B, 2, 0, 1), alu64(ADD, 2, 1), alu64(ADD, 0, 1), ja(-5), exit());
        assertThat(unchecked(p)).isEmpty();
        assertThat(same(p, 64)).startsWith("r0=40 ");
        assertThat(same(p, 65)).startsWith("r0=OUT_OF_BOUNDS@5");
    }

    private static String hex(long a, long b) {
        byte[] out = new byte[16];
        for (int i = 0; i < 8; i++) { out[i] = (byte) (a >>> (8 * i)); out[8 + i] = (byte) (b >>> (8 * i)); }
        StringBuilder s = new StringBuilder();
        for (byte x : out) s.append(String.format("%02x", x & 0xff));
        return s.toString();
    }
}
