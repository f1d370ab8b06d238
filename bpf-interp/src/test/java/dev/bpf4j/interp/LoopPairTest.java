package dev.bpf4j.interp;

import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static dev.bpf4j.interp.Asm.*;
import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The loop pairs of {@link Superinstructions} (checked load + jump, two checked stores, two adds,
 * mov32 + jump): each program runs fused and with every slot dispatched alone
 * ({@link Decoder#decodeUnfused}), and both must give the same r0, memory, or error (kind, pc,
 * address); the expected value is checked too. The differential test against the JIT is
 * {@code LoopPairDifferentialTest} in it-tests.
 */
// A budget bug in a fused jump makes a loop run forever: fail it from another thread instead of hanging the build.
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class LoopPairTest {
    static final int LEN = 16;
    long mem;

    @BeforeEach void allocate() { mem = NativeMemory.allocate(LEN); }

    @AfterEach void free() { NativeMemory.free(mem); }

    /** r1 = a writable 16-byte region holding u32 values 5, 9, 0xffffffff, 3; r3 = {@code arg}. */
    RunContext ctx(long arg, long budget) {
        NativeMemory.putInt(mem, 5);
        NativeMemory.putInt(mem + 4, 9);
        NativeMemory.putInt(mem + 8, -1);
        NativeMemory.putInt(mem + 12, 3);
        return RunContext.builder().arg(1, mem).arg(3, arg).budget(budget)
                .region(new MemoryRegion("ctx", mem, LEN, true)).build();
    }

    /** r0 or the error, and the region's bytes after the run. */
    record Outcome(Long r0, ErrorKind kind, int pc, long address, long lo, long hi) {}

    Outcome run(Program p, boolean fused, long arg, long budget) {
        RunContext c = ctx(arg, budget);
        Long r0 = null;
        ErrorKind kind = null;
        int pc = -1;
        long address = 0;
        LoadOptions o = LoadOptions.defaults().withEntryArgs(3);
        DecodedProgram d = fused ? Decoder.decode(p, o) : Decoder.decodeUnfused(p, o);
        try (Executable e = new InterpretedExecutable(p, d)) {
            r0 = e.run(c);
            r0 = e.run(c); // again: the window found by the first run now holds from the start
        } catch (BpfRuntimeException x) {
            kind = x.kind();
            pc = x.pc();
            address = x.address();
        }
        return new Outcome(r0, kind, pc, address, NativeMemory.getLong(mem), NativeMemory.getLong(mem + 8));
    }

    /** Runs {@code p} fused and unfused with r3 = {@code arg}; they must agree; returns the fused outcome. */
    Outcome agree(Program p, long arg, long budget) {
        Outcome fused = run(p, true, arg, budget), apart = run(p, false, arg, budget);
        assertThat(fused).as("fused vs unfused, r3 = %d", arg).isEqualTo(apart);
        return fused;
    }

    Outcome agree(Program p, long arg) { return agree(p, arg, 1_000_000); }

    static int opcodeAt(Program p, int pc) { return InsnCode.opcode(Decoder.decode(p, LoadOptions.defaults()).code[pc]); }

    @Test
    void loadAndJump32() {
        // r0 = r3; r6 = *(u32 *)(r1 + 4); if w0 <= w6 goto +2; r0 = 100; exit; r0 = r6; exit
        Program p = prog(movr(0, 3), ldx(W, 6, 1, 4), jmp32(JLE, 0, 6, 2), mov(0, 100), exit(), movr(0, 6), exit());
        assertThat(opcodeAt(p, 1)).isEqualTo(InsnCode.LDXW_JLE32_X);
        assertThat(agree(p, 9).r0()).isEqualTo(9);
        assertThat(agree(p, 0x1_0000_0009L).r0()).as("32-bit compare").isEqualTo(9);
        assertThat(agree(p, 10).r0()).isEqualTo(100);
        // the jump compares the loaded register itself, as dst
        Program self = prog(ldx(W, 6, 1, 8), jmp32(JLE, 6, 3, 1), exit(), mov(0, 7), exit());
        assertThat(opcodeAt(self, 0)).isEqualTo(InsnCode.LDXW_JLE32_X);
        assertThat(agree(self, -1).r0()).isEqualTo(7);
        assertThat(agree(self, 0x7fff_ffff).r0()).isEqualTo(0);
    }

    @Test
    void loadFaultReportsTheLoad() {
        // the load crosses the region's end: OUT_OF_BOUNDS at the load's pc with its address
        Program p = prog(mov(0, 1), ldx(W, 6, 1, 14), jmp32(JLE, 0, 6, 1), exit(), mov(0, 2), exit());
        assertThat(opcodeAt(p, 1)).isEqualTo(InsnCode.LDXW_JLE32_X);
        Outcome o = agree(p, 0);
        assertThat(o.kind()).isEqualTo(ErrorKind.OUT_OF_BOUNDS);
        assertThat(o.pc()).isEqualTo(1);
        assertThat(o.address()).isEqualTo(mem + 14);
        // the same after an access that put the window on the region (the pair is tried in the window first)
        Program warm = prog(ldx(B, 0, 1, 0), ldx(W, 6, 1, 13), jmp32(JLE, 0, 6, 1), exit(), mov(0, 2), exit());
        o = agree(warm, 0);
        assertThat(o.kind()).isEqualTo(ErrorKind.OUT_OF_BOUNDS);
        assertThat(o.pc()).isEqualTo(1);
        assertThat(o.address()).isEqualTo(mem + 13);
    }

    @Test
    void loadAndJumpBackEdgeSpendsBudgetAtTheJump() {
        // r2 = 0; L: r2 += 1; r6 = *(u32 *)(r1 + 8); if w2 <= w6 goto L; exit: never ends, budget runs out at pc 3
        Program p = prog(mov(2, 0), alu64i(ADD, 2, 1), ldx(W, 6, 1, 8), jmp32(JLE, 2, 6, -3), movr(0, 2), exit());
        assertThat(opcodeAt(p, 2)).isEqualTo(InsnCode.LDXW_JLE32_X);
        Outcome o = agree(p, 0, 50);
        assertThat(o.kind()).isEqualTo(ErrorKind.BUDGET_EXCEEDED);
        assertThat(o.pc()).isEqualTo(3);
        // with a bound the loop ends: r6 = 9 from offset 4
        Program bounded = prog(mov(2, 0), alu64i(ADD, 2, 1), ldx(W, 6, 1, 4), jmp32(JLE, 2, 6, -3), movr(0, 2), exit());
        assertThat(agree(bounded, 0).r0()).isEqualTo(10);
    }

    @Test
    void aJumpIntoTheSecondSlotRunsItAlone() {
        // r0 = 1; r6 = 7; if r3 == 0 goto +1 (the jump slot of the pair); r6 = *(u32 *)(r1 + 0); if w0 <= w6 goto +1; exit; r0 = r6; exit
        Program p = prog(mov(0, 1), mov(6, 7), jmpi(JEQ, 3, 0, 1), ldx(W, 6, 1, 0), jmp32(JLE, 0, 6, 1), exit(), movr(0, 6), exit());
        assertThat(opcodeAt(p, 3)).isEqualTo(InsnCode.LDXW_JLE32_X);
        assertThat(agree(p, 0).r0()).isEqualTo(7);
        assertThat(agree(p, 1).r0()).isEqualTo(5);
        // the same for two stores: skip the first
        Program s = prog(mov(2, 0x11), mov(4, 0x22), jmpi(JEQ, 3, 0, 1), stx(W, 1, 2, 0), stx(W, 1, 4, 4), ldx(DW, 0, 1, 0), exit());
        assertThat(opcodeAt(s, 3)).isEqualTo(InsnCode.STXW_STXW);
        assertThat(agree(s, 0).r0()).isEqualTo(0x22_0000_0005L);
        assertThat(agree(s, 1).r0()).isEqualTo(0x22_0000_0011L);
    }

    @Test
    void twoStores() {
        Program p = prog(lddw(2, 0x7777_7777_1111_1111L), mov(4, 0x2222), stx(W, 1, 2, 8), stx(W, 1, 4, 12), ldx(DW, 0, 1, 8), exit());
        assertThat(opcodeAt(p, 3)).isEqualTo(InsnCode.STXW_STXW);
        Outcome o = agree(p, 0);
        assertThat(o.r0()).isEqualTo(0x2222_1111_1111L);
        assertThat(o.hi()).isEqualTo(0x2222_1111_1111L);
        // the same address twice: the second store wins
        Program twice = prog(mov(2, 0x11), mov(4, 0x22), stx(W, 1, 2, 4), stx(W, 1, 4, 4), ldx(DW, 0, 1, 0), exit());
        assertThat(opcodeAt(twice, 2)).isEqualTo(InsnCode.STXW_STXW);
        assertThat(agree(twice, 0).r0()).isEqualTo(0x22_0000_0005L);
        // through a computed pointer into the stack, as sort's swap
        Program stack = prog(mov(2, 1), mov(4, 2), movr(5, 10), alu64i(ADD, 5, -8), stx(W, 5, 2, 0), stx(W, 5, 4, 4), ldx(DW, 0, 10, -8), exit());
        assertThat(opcodeAt(stack, 4)).isEqualTo(InsnCode.STXW_STXW);
        assertThat(agree(stack, 0).r0()).isEqualTo(0x2_0000_0001L);
    }

    @Test
    void aFaultInEitherStoreReportsThatStore() {
        // the first store is out of bounds: nothing is written, the error names pc 2
        Program first = prog(mov(2, 0x11), mov(4, 0x22), stx(W, 1, 2, 14), stx(W, 1, 4, 0), mov(0, 0), exit());
        assertThat(opcodeAt(first, 2)).isEqualTo(InsnCode.STXW_STXW);
        Outcome o = agree(first, 0);
        assertThat(o.kind()).isEqualTo(ErrorKind.OUT_OF_BOUNDS);
        assertThat(o.pc()).isEqualTo(2);
        assertThat(o.address()).isEqualTo(mem + 14);
        assertThat(o.lo()).isEqualTo(0x9_0000_0005L);
        // the second one is: the first has been written, the error names pc 3
        Program second = prog(mov(2, 0x11), mov(4, 0x22), stx(W, 1, 2, 0), stx(W, 1, 4, -4), mov(0, 0), exit());
        o = agree(second, 0);
        assertThat(o.kind()).isEqualTo(ErrorKind.OUT_OF_BOUNDS);
        assertThat(o.pc()).isEqualTo(3);
        assertThat(o.address()).isEqualTo(mem - 4);
        assertThat(o.lo()).isEqualTo(0x9_0000_0011L);
        // the same with the write window already on the region
        Program warm = prog(mov(2, 0x11), mov(4, 0x22), st(B, 1, 15, 0), stx(W, 1, 2, 0), stx(W, 1, 4, 13), mov(0, 0), exit());
        o = agree(warm, 0);
        assertThat(o.kind()).isEqualTo(ErrorKind.OUT_OF_BOUNDS);
        assertThat(o.pc()).isEqualTo(4);
        assertThat(o.address()).isEqualTo(mem + 13);
        assertThat(o.lo()).isEqualTo(0x9_0000_0011L);
    }

    @Test
    void twoAdds() {
        Program p = prog(mov(2, 10), lddw(4, 0xffff_ffff_ffff_fff0L), alu64i(ADD, 2, 1), alu64i(ADD, 4, -4), movr(0, 2),
                alu64(ADD, 0, 4), exit());
        assertThat(opcodeAt(p, 3)).isEqualTo(InsnCode.ADD_ADD_K);
        assertThat(agree(p, 0).r0()).isEqualTo(11 - 20);
        // one register twice, and a jump into the second
        Program same = prog(mov(0, 1), jmpi(JEQ, 3, 0, 1), alu64i(ADD, 0, 0x7fff_ffff), alu64i(ADD, 0, 4), exit());
        assertThat(opcodeAt(same, 2)).isEqualTo(InsnCode.ADD_ADD_K);
        assertThat(agree(same, 0).r0()).isEqualTo(5);
        assertThat(agree(same, 1).r0()).isEqualTo(0x8000_0004L);
    }

    @Test
    void mov32AndJumps() {
        // w0 = w6 (truncates); if r5 < r3 goto +1; r0 += 100; exit
        Program lt = prog(lddw(6, 0x1_0000_0007L), mov(5, 4), alu32(MOV, 0, 6), jmp(JLT, 5, 3, 1), alu64i(ADD, 0, 100), exit());
        assertThat(opcodeAt(lt, 3)).isEqualTo(InsnCode.MOV32_JLT_X);
        assertThat(agree(lt, 5).r0()).isEqualTo(7);
        assertThat(agree(lt, 4).r0()).isEqualTo(107);
        // the jump reads the moved register
        Program moved = prog(lddw(6, 0x1_0000_0007L), alu32(MOV, 5, 6), jmp(JLT, 5, 3, 1), mov(0, 1), exit());
        assertThat(opcodeAt(moved, 2)).isEqualTo(InsnCode.MOV32_JLT_X);
        assertThat(agree(moved, 8).r0()).isEqualTo(0);
        assertThat(agree(moved, 7).r0()).isEqualTo(1);
        // w0 = w2; goto L, backwards: the budget runs out at the goto
        Program loop = prog(mov(2, 3), alu64i(ADD, 2, 1), alu32(MOV, 0, 2), ja(-3), exit());
        assertThat(opcodeAt(loop, 2)).isEqualTo(InsnCode.MOV32_JA);
        Outcome o = agree(loop, 0, 20);
        assertThat(o.kind()).isEqualTo(ErrorKind.BUDGET_EXCEEDED);
        assertThat(o.pc()).isEqualTo(3);
        // forwards, and a back-edge of the mov + jlt pair out of budget
        Program fwd = prog(mov(2, 3), alu32(MOV, 0, 2), ja(1), mov(0, 9), exit());
        assertThat(agree(fwd, 0).r0()).isEqualTo(3);
        Program ltLoop = prog(mov(5, 0), alu64i(ADD, 5, 1), alu32(MOV, 0, 5), jmp(JLT, 5, 3, -3), exit());
        assertThat(opcodeAt(ltLoop, 2)).isEqualTo(InsnCode.MOV32_JLT_X);
        assertThat(agree(ltLoop, 40, 1000).r0()).isEqualTo(40);
        o = agree(ltLoop, 40, 10);
        assertThat(o.kind()).isEqualTo(ErrorKind.BUDGET_EXCEEDED);
        assertThat(o.pc()).isEqualTo(3);
    }

    @Test
    void byteLoadAndShift() {
        // r2 = *(u8 *)(r1 + 4); r2 <<= 24; r0 = r2; exit
        Program p = prog(ldx(B, 2, 1, 4), alu64i(LSH, 2, 24), movr(0, 2), exit());
        assertThat(opcodeAt(p, 0)).isEqualTo(InsnCode.LDXB_LSH_K);
        assertThat(agree(p, 0).r0()).isEqualTo(9L << 24);
        // 0xff << 56: a 64-bit shift
        Program top = prog(ldx(B, 2, 1, 8), alu64i(LSH, 2, 56), movr(0, 2), exit());
        assertThat(agree(top, 0).r0()).isEqualTo(0xffL << 56);
        // the shift names another register than the load
        Program other = prog(ldx(B, 6, 1, 12), alu64i(LSH, 3, 4), movr(0, 6), alu64(ADD, 0, 3), exit());
        assertThat(opcodeAt(other, 0)).isEqualTo(InsnCode.LDXB_LSH_K);
        assertThat(agree(other, 0x10).r0()).isEqualTo(3 + 0x100);
        // a jump into the shift runs it alone
        Program into = prog(mov(2, 3), jmpi(JEQ, 3, 0, 1), ldx(B, 2, 1, 0), alu64i(LSH, 2, 8), movr(0, 2), exit());
        assertThat(opcodeAt(into, 2)).isEqualTo(InsnCode.LDXB_LSH_K);
        assertThat(agree(into, 0).r0()).isEqualTo(3 << 8);
        assertThat(agree(into, 1).r0()).isEqualTo(5 << 8);
    }

    @Test
    void byteLoadFaultReportsTheLoadAndSkipsTheShift() {
        // r2 = 1; r2 = *(u8 *)(r1 + 16): past the region, OUT_OF_BOUNDS at pc 1 with its address
        Program p = prog(mov(2, 1), ldx(B, 2, 1, 16), alu64i(LSH, 2, 8), movr(0, 2), exit());
        assertThat(opcodeAt(p, 1)).isEqualTo(InsnCode.LDXB_LSH_K);
        Outcome o = agree(p, 0);
        assertThat(o.kind()).isEqualTo(ErrorKind.OUT_OF_BOUNDS);
        assertThat(o.pc()).isEqualTo(1);
        assertThat(o.address()).isEqualTo(mem + 16);
        // below the region, with the read window already on it
        Program warm = prog(ldx(B, 0, 1, 0), ldx(B, 2, 1, -1), alu64i(LSH, 2, 8), exit());
        o = agree(warm, 0);
        assertThat(o.kind()).isEqualTo(ErrorKind.OUT_OF_BOUNDS);
        assertThat(o.pc()).isEqualTo(1);
        assertThat(o.address()).isEqualTo(mem - 1);
    }
}
