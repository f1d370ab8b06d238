package dev.bpf4j.jit;

import dev.bpf4j.jit.compiler.CompiledProgram;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.LoadOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.jit.I.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Data-buffer accesses the JIT's guarded copy leaves unchecked (RegionProof) and the ones it must
 * keep. Programs use the data-buffer convention (entry r1 = data, r2 = len) over a 64-byte region
 * inside a larger allocation; each runs on both engines over several (data, len) pairs, including
 * ones the entry guard must refuse (len past the region, data before it), and must give the same
 * r0 or the same error kind, pc and address, and the same memory.
 */
class RegionProofTest {
    private static final LoadOptions OPTIONS = RegionRuns.OPTIONS;
    private RegionRuns runs;

    @BeforeEach void alloc() { runs = new RegionRuns(); }

    @AfterEach void free() { runs.close(); }

    private List<String> same(Program p, boolean writable) { return runs.same(p, writable); }

    private List<String> same(Program p) { return runs.same(p); }

    private static CompiledProgram compiled(Program p) { return Jit.LOADER.compile(p, OPTIONS); }

    private static int[] guarded(Program p) { return compiled(p).proofs().guardedPcs(); }

    /** r4 = end; r3 = data + n; if r3 REL r4 goto out; r0 = byte at data + at; exit; out: r0 = 7. */
    private static Program tested(String name, int rel, int n, int at) {
        return prog(name, mov64r(4, 1), alu64r(ADD, 4, 2), mov64r(3, 1), alu64(ADD, 3, n),
                jmpr(rel, 3, 4, 2), ldx(B, 0, 1, at), exit(), mov64(0, 7), exit());
    }

    @Test
    void aTestAgainstTheEndProvesTheBytesBelowIt() {
        Program p = tested("ok", JGT, 14, 13);
        assertThat(guarded(p)).containsExactly(5);
        assertThat(compiled(p).proofs().uncheckedPcs()).as("the checked body keeps the check").isEmpty();
        assertThat(compiled(p).proofs().guardedOffset()).isPositive();
        int[] copy = compiled(p).layout().guardedPcOffsets();
        assertThat(copy).as("the copy's slots, then its end").hasSize(p.insns().size() + 1);
        assertThat(copy[0]).isEqualTo(compiled(p).proofs().guardedOffset());
        assertThat(copy).isSorted();
        assertThat(copy[0]).isGreaterThan(compiled(p).layout().nativeOffset(p.insns().size() - 1));
        assertThat(compiled(p).layout().pcOffsets()).doesNotContain(copy[5]);
        List<String> o = same(p);
        // len 14 at region + 60 passes the program's test but not the entry guard: checked, fails
        assertThat(o).contains("r0=7", "OUT_OF_BOUNDS@5 addr=base+73");
    }

    @Test
    void theEndOnTheLeftAndStrictComparesProveToo() {
        // if end < data + 14 goto out (mirrored), if data + 14 >= end goto out (one byte more)
        Program mirrored = prog("mirror", mov64r(4, 1), alu64r(ADD, 4, 2), mov64r(3, 1), alu64(ADD, 3, 14),
                jmpr(JLT, 4, 3, 2), ldx(B, 0, 1, 13), exit(), mov64(0, 7), exit());
        assertThat(guarded(mirrored)).containsExactly(5);
        same(mirrored);
        Program strict = tested("strict", JGE, 14, 14);
        assertThat(guarded(strict)).containsExactly(5);
        same(strict);
        Program taken = prog("taken", mov64r(4, 1), alu64r(ADD, 4, 2), mov64r(3, 1), alu64(ADD, 3, 14),
                jmpr(JLE, 3, 4, 2), mov64(0, 7), exit(), ldx(B, 0, 1, 13), exit());
        assertThat(guarded(taken)).containsExactly(7);
        same(taken);
    }

    @Test
    void offByOneWrongDirectionSignedAnd32BitComparesKeepTheirChecks() {
        Program offByOne = tested("off1", JGT, 13, 13);
        assertThat(guarded(offByOne)).isEmpty();
        assertThat(compiled(offByOne).proofs().guardedOffset()).as("nothing proven: no copy").isEqualTo(-1);
        assertThat(same(offByOne)).contains("OUT_OF_BOUNDS@5 addr=base+64"); // data + 13 = the region's end
        Program wrongWay = tested("wrong", JLT, 14, 13);
        assertThat(guarded(wrongWay)).isEmpty();
        assertThat(same(wrongWay)).contains("OUT_OF_BOUNDS@5 addr=base+64");
        Program signed = tested("signed", JSGT, 14, 13);
        assertThat(guarded(signed)).isEmpty();
        same(signed);
        Program narrow = prog("jmp32", mov64r(4, 1), alu64r(ADD, 4, 2), mov64r(3, 1), alu64(ADD, 3, 14),
                jmp32r(JGT, 3, 4, 2), ldx(B, 0, 1, 13), exit(), mov64(0, 7), exit());
        assertThat(guarded(narrow)).isEmpty();
        same(narrow);
    }

    @Test
    void pointerArithmeticAfterTheTestIsTracked() {
        // test data + 14, then data += 1: byte 12 of the new pointer is byte 13, byte 13 is past the test
        for (int at : new int[]{12, 13, -1, -2}) {
            Program p = prog("after" + at, mov64r(4, 1), alu64r(ADD, 4, 2), mov64r(3, 1), alu64(ADD, 3, 14),
                    jmpr(JGT, 3, 4, 3), alu64(ADD, 1, 1), ldx(B, 0, 1, at), exit(), mov64(0, 7), exit());
            if (at == 12 || at == -1) assertThat(guarded(p)).as("offset %d", at).containsExactly(6);
            else assertThat(guarded(p)).as("offset %d", at).isEmpty();
            same(p);
        }
    }

    @Test
    void lengthTestsProveLikePointerTests() {
        // clang's form in the parse workload: if len s< 14 goto out; if len < 34 goto out
        Program p = prog("len", jmp(JSLT, 2, 14, 3), jmp(JLT, 2, 34, 2), ldx(B, 0, 1, 33), exit(), mov64(0, 7), exit());
        assertThat(guarded(p)).containsExactly(2);
        same(p);
        Program off = prog("len1", jmp(JLT, 2, 34, 2), ldx(B, 0, 1, 34), exit(), mov64(0, 7), exit());
        assertThat(guarded(off)).isEmpty();
        assertThat(same(off)).contains("OUT_OF_BOUNDS@1 addr=base+64");
        // a length that changed is not len any more: data + (len + 1) is no end
        Program changed = prog("changed", alu64(ADD, 2, 1), mov64r(4, 1), alu64r(ADD, 4, 2), mov64r(3, 1), alu64(ADD, 3, 14),
                jmpr(JGT, 3, 4, 2), ldx(B, 0, 1, 13), exit(), mov64(0, 7), exit());
        assertThat(guarded(changed)).isEmpty();
        assertThat(same(changed)).contains("OUT_OF_BOUNDS@6 addr=base+64");
        // the end computed from a pointer that moved first is no end either
        Program moved = prog("moved", mov64r(4, 1), alu64(ADD, 4, 1), alu64r(ADD, 4, 2), mov64r(3, 1), alu64(ADD, 3, 14),
                jmpr(JGT, 3, 4, 2), ldx(B, 0, 1, 14), exit(), mov64(0, 7), exit());
        assertThat(guarded(moved)).isEmpty();
        same(moved);
    }

    /** ihl = (byte 0 & 15) * 4 as 32-bit ops, at least 20; tcp = data + ihl; if tcp + need > end goto out; r0 = byte at tcp + at. */
    private static Program variable(String name, int need, int at, boolean wrap) {
        return prog(name, jmp(JLT, 2, 1, 13), ldx(B, 5, 1, 0), alu32(AND, 5, 15), alu32(LSH, 5, 2),
                wrap ? alu32(SUB, 5, 21) : jmp32(JLT, 5, 20, 9),
                mov64r(4, 1), alu64r(ADD, 4, 2), mov64r(3, 1), alu64r(ADD, 3, 5),
                mov64r(6, 3), alu64(ADD, 6, need), jmpr(JGT, 6, 4, 2),
                ldx(B, 0, 3, at), exit(), mov64(0, 7), exit());
    }

    @Test
    void aVariableOffsetGetsItsOwnRange() {
        Program ok = variable("ihl", 8, 7, false);
        assertThat(guarded(ok)).containsExactly(1, 12);
        assertThat(same(ok)).contains("r0=7");
        Program past = variable("ihl+1", 8, 8, false);
        assertThat(guarded(past)).containsExactly(1);
        same(past);
        // w5 = ihl - 21 wraps to almost 2^32 for ihl 20: the test against the end still decides
        Program wraps = variable("wrap", 8, 7, true);
        assertThat(guarded(wraps)).containsExactly(1, 12);
        same(wraps);
        Program wrapsBelow = variable("wrapBelow", 8, -1, true);
        assertThat(guarded(wrapsBelow)).as("below the variable's lower bound").containsExactly(1);
        same(wrapsBelow);
    }

    @Test
    void spilledPointersKeepTheirRange() {
        Program p = prog("spill", mov64r(4, 1), alu64r(ADD, 4, 2), mov64r(3, 1), alu64(ADD, 3, 14),
                stx(DW, 10, 1, -8), stx(DW, 10, 4, -16), jmpr(JGT, 3, 4, 4),
                ldx(DW, 6, 10, -8), ldx(B, 0, 6, 13), exit(), exit(), mov64(0, 7), exit());
        assertThat(guarded(p)).containsExactly(8);
        same(p);
        Program clobbered = prog("clobbered", mov64r(4, 1), alu64r(ADD, 4, 2), mov64r(3, 1), alu64(ADD, 3, 14),
                stx(DW, 10, 1, -8), st(B, 10, -8, 0), jmpr(JGT, 3, 4, 4),
                ldx(DW, 6, 10, -8), ldx(B, 0, 6, 13), exit(), exit(), mov64(0, 7), exit());
        assertThat(guarded(clobbered)).isEmpty();
        same(clobbered);
    }

    @Test
    void storesNeedAWritableRegionAtEntry() {
        Program p = prog("store", mov64r(4, 1), alu64r(ADD, 4, 2), mov64r(3, 1), alu64(ADD, 3, 14),
                jmpr(JGT, 3, 4, 3), st(B, 1, 13, 0x5a), mov64(0, 1), exit(), mov64(0, 7), exit());
        assertThat(guarded(p)).containsExactly(5);
        List<String> readOnly = same(p, false); // the guard refuses a read-only region: checked, fails like the interpreter
        assertThat(readOnly).contains("OUT_OF_BOUNDS@5 addr=base+13");
        assertThat(same(p, true)).contains("r0=1");
    }

    @Test
    void aBufferPastItsRegionTakesTheCheckedBody() {
        // len 65 on a 64-byte region: the program's own test passes, byte 64 is outside the region
        Program p = tested("past", JGT, 65, 64);
        assertThat(guarded(p)).containsExactly(5);
        assertThat(same(p)).contains("OUT_OF_BOUNDS@5 addr=base+64");
    }
}
