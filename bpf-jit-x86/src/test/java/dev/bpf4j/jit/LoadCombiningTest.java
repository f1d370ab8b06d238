package dev.bpf4j.jit;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.jit.compiler.CompiledProgram;
import dev.bpf4j.program.Program;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.jit.I.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Byte loads the JIT merges into one wide load (LoadCombining), and the trees it must leave alone.
 * Every program also runs on both engines over contexts the entry guard accepts and refuses
 * ({@link RegionRuns}), so a wrong merge shows up as a different r0, error or memory.
 */
class LoadCombiningTest {
    private RegionRuns runs;

    @BeforeEach void alloc() { runs = new RegionRuns(); }

    @AfterEach void free() { runs.close(); }

    private static CompiledProgram compiled(Program p) { return Jit.LOADER.compile(p, RegionRuns.OPTIONS); }

    /** if len < n goto out; body (from pc 1); exit; out: r0 = 7; exit. */
    private static Program guarded(String name, int n, Object... body) {
        int slots = 0;
        for (Object o : body) slots += o instanceof Insn[] ? ((Insn[]) o).length : 1;
        Object[] parts = new Object[body.length + 4];
        parts[0] = jmp(JLT, 2, n, slots + 1);
        System.arraycopy(body, 0, parts, 1, body.length);
        parts[body.length + 1] = exit();
        parts[body.length + 2] = mov64(0, 7);
        parts[body.length + 3] = exit();
        return prog(name, parts);
    }

    /** The byte at {@code data + i} for data at the region's start (RegionRuns fills the allocation). */
    private static long at(int i) {
        return i == 0 ? 0x45 : ((RegionRuns.PAD + i) * 37 + 11) & 0xff;
    }

    private static long bigEndian(int from, int width) {
        long v = 0;
        for (int i = 0; i < width; i++) v = v << 8 | at(from + i);
        return v;
    }

    /** r0 when data is the region's start and len is 64 (the ninth context). */
    private String fullRegion(Program p, boolean writable) { return runs.same(p, writable).get(8); }

    @Test
    void aBigEndianHalfWordAsClangWritesIt() {
        // r3 = b[13]; r4 = b[12]; w4 <<= 8; w4 |= w3; r0 = r4
        Program p = guarded("be16", 14, ldx(B, 3, 1, 13), ldx(B, 4, 1, 12), alu32(LSH, 4, 8), alu32r(OR, 4, 3), mov64r(0, 4));
        assertThat(compiled(p).proofs().guardedCombinedPcs()).containsExactly(2);
        assertThat(compiled(p).proofs().combinedPcs()).as("the checked body keeps its byte loads").isEmpty();
        assertThat(fullRegion(p, false)).isEqualTo("r0=" + Long.toHexString(bigEndian(12, 2)));
    }

    @Test
    void interleavedWordsBecomeOneBigEndianDoubleWord() {
        // the parse workload's shape: two words built in two registers, one shifted up and or-ed in,
        // with an lddw and an unrelated load in between
        Program p = guarded("be64", 40,
                ldx(B, 2, 1, 0), alu64(LSH, 2, 24), ldx(B, 4, 1, 1), alu64(LSH, 4, 16), alu64r(OR, 4, 2),
                ldx(B, 2, 1, 2), alu64(LSH, 2, 8), alu64r(OR, 4, 2),
                ldx(B, 5, 1, 4), alu64(LSH, 5, 24), ldx(B, 2, 1, 5), alu64(LSH, 2, 16), alu64r(OR, 2, 5),
                ldx(B, 5, 1, 3), alu64r(OR, 4, 5), lddw(6, 0x1122334455667788L), ldx(B, 7, 1, 30),
                ldx(B, 5, 1, 7), ldx(B, 0, 1, 6), alu64(LSH, 0, 8),
                alu64(LSH, 4, 32), alu64r(OR, 2, 4), alu64r(OR, 2, 0), alu64r(OR, 2, 5),
                mov64r(0, 2), alu64r(XOR, 0, 6), alu64r(ADD, 0, 7));
        assertThat(compiled(p).proofs().guardedCombinedPcs()).as("one load, at the last byte load").containsExactly(20);
        long want = (bigEndian(0, 8) ^ 0x1122334455667788L) + at(30);
        assertThat(fullRegion(p, false)).isEqualTo("r0=" + Long.toHexString(want));
    }

    @Test
    void aLittleEndianWordNeedsNoSwap() {
        Program p = guarded("le32", 4, ldx(B, 0, 1, 0), ldx(B, 3, 1, 1), alu32(LSH, 3, 8), alu32r(OR, 0, 3),
                ldx(B, 3, 1, 2), alu32(LSH, 3, 16), alu32r(OR, 0, 3), ldx(B, 3, 1, 3), alu32(LSH, 3, 24), alu32r(OR, 0, 3));
        assertThat(compiled(p).proofs().guardedCombinedPcs()).containsExactly(8);
        long want = at(0) | at(1) << 8 | at(2) << 16 | at(3) << 24;
        assertThat(fullRegion(p, false)).isEqualTo("r0=" + Long.toHexString(want));
    }

    @Test
    void stackBytesMergeInTheCheckedBody() {
        Program p = prog("stack", st(W, 10, -8, 0x89abcdef), st(W, 10, -4, 0x01234567),
                ldx(B, 3, 10, -5), ldx(B, 0, 10, -6), alu64(LSH, 0, 8), alu64r(OR, 0, 3), exit());
        assertThat(compiled(p).proofs().combinedPcs()).containsExactly(3);
        assertThat(fullRegion(p, false)).isEqualTo("r0=" + Long.toHexString(0xab89L));
    }

    @Test
    void aPartialValueReadElsewhereKeepsTheBytes() {
        // r3 (byte 13) is also added to r0 after the tree
        Program used = guarded("used", 14, ldx(B, 3, 1, 13), ldx(B, 4, 1, 12), alu32(LSH, 4, 8), alu32r(OR, 4, 3),
                mov64r(0, 4), alu64r(ADD, 0, 3));
        assertThat(compiled(used).proofs().guardedCombinedPcs()).isEmpty();
        runs.same(used);
        // r3 read in the next block (a jump splits the block)
        Program liveOut = guarded("liveout", 14, ldx(B, 3, 1, 13), ldx(B, 4, 1, 12), alu32(LSH, 4, 8), alu32r(OR, 4, 3),
                mov64r(0, 4), jmp(JEQ, 4, 0, 0), alu64r(ADD, 0, 3));
        assertThat(compiled(liveOut).proofs().guardedCombinedPcs()).isEmpty();
        runs.same(liveOut);
    }

    @Test
    void aStoreBetweenTheLoadsKeepsThem() {
        // the store changes byte 12 after it was read: one load at the last byte load would see the new byte
        Program stored = guarded("stored", 14, ldx(B, 3, 1, 12), st(B, 1, 12, 0x99), ldx(B, 4, 1, 13),
                alu64(LSH, 3, 8), alu64r(OR, 3, 4), mov64r(0, 3));
        assertThat(compiled(stored).proofs().guardedCombinedPcs()).isEmpty();
        assertThat(fullRegion(stored, true)).isEqualTo("r0=" + Long.toHexString(at(12) << 8 | at(13)));
        // an atomic add to byte 12's word between the loads, likewise
        Program atomic = guarded("atomic", 14, mov64(5, 1), ldx(B, 3, 1, 12), atomic(W, 1, 5, 12, ADD), ldx(B, 4, 1, 13),
                alu64(LSH, 3, 8), alu64r(OR, 3, 4), mov64r(0, 3));
        assertThat(compiled(atomic).proofs().guardedCombinedPcs()).isEmpty();
        runs.same(atomic, true);
    }

    @Test
    void aChangedBaseOrAGapIsNoWideLoad() {
        Program moved = guarded("moved", 14, ldx(B, 3, 1, 13), alu64(ADD, 1, 0), ldx(B, 4, 1, 12),
                alu64(LSH, 4, 8), alu64r(OR, 4, 3), mov64r(0, 4));
        assertThat(compiled(moved).proofs().guardedCombinedPcs()).isEmpty();
        runs.same(moved);
        Program gap = guarded("gap", 14, ldx(B, 3, 1, 13), ldx(B, 4, 1, 11), alu64(LSH, 4, 8), alu64r(OR, 4, 3), mov64r(0, 4));
        assertThat(compiled(gap).proofs().guardedCombinedPcs()).isEmpty();
        runs.same(gap);
        // a byte shifted past bit 31 by a 32-bit shift is lost, not gathered
        Program lost = guarded("lost", 14, ldx(B, 3, 1, 13), ldx(B, 4, 1, 12), alu32(LSH, 4, 24), alu32(LSH, 4, 8),
                alu32r(OR, 4, 3), mov64r(0, 4));
        assertThat(compiled(lost).proofs().guardedCombinedPcs()).isEmpty();
        runs.same(lost);
    }

    @Test
    void theDestinationReadBeforeTheTreeEndsMergesASmallerTree() {
        // r3 = 5; bytes into r4, r5; r0 = r3 (the old r3); r5 <<= 8; r5 |= r4; r3 = r5; r0 += r3
        Program p = guarded("smaller", 14, mov64(3, 5), ldx(B, 4, 1, 13), ldx(B, 5, 1, 12), mov64r(0, 3),
                alu64(LSH, 5, 8), alu64r(OR, 5, 4), mov64r(3, 5), alu64r(ADD, 0, 3));
        assertThat(compiled(p).proofs().guardedCombinedPcs()).as("the or's tree, not the move's").containsExactly(3);
        assertThat(fullRegion(p, false)).isEqualTo("r0=" + Long.toHexString(5 + bigEndian(12, 2)));
    }

    @Test
    void checkedLoadsAreNeverMerged() {
        // no length test: every byte load keeps its check and fails at its own pc
        Program p = prog("checked", ldx(B, 3, 1, 13), ldx(B, 4, 1, 12), alu32(LSH, 4, 8), alu32r(OR, 4, 3), mov64r(0, 4), exit());
        assertThat(compiled(p).proofs().combinedPcs()).isEmpty();
        assertThat(compiled(p).proofs().guardedOffset()).isEqualTo(-1);
        List<String> outcomes = runs.same(p);
        assertThat(outcomes).contains("r0=" + Long.toHexString(bigEndian(12, 2)), "OUT_OF_BOUNDS@0 addr=base+64",
                "OUT_OF_BOUNDS@0 addr=base+73");
    }
}
