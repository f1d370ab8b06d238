package dev.bpf4j.it;

import dev.bpf4j.api.Engines;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The interpreter's loop pairs (docs/interpreter.md section 4: a checked u32 load and a 32-bit
 * compare-and-jump, two checked u32 stores, two adds of immediates, {@code wX = wY} and a jump,
 * a checked byte load and a shift by an immediate)
 * against the JIT: every program here is fused by the interpreter, and both engines must return
 * the same r0 and memory, or fail with the same kind, pc and address, including a fault in the
 * load or either store, a jump into the pair's second slot and a back-edge out of budget. The
 * fused-versus-unfused check is bpf-interp's {@code LoopPairTest}.
 */
class LoopPairDifferentialTest {
    static final int LEN = 16;

    @BeforeAll
    static void bothEngines() {
        Assumptions.assumeTrue(Engines.available().stream().anyMatch(e -> e.name().equals("jit")), "no JIT on this platform");
    }

    static Insn ldxw(int dst, int src, int off) { return new Insn(LDX | MEM | W, dst, src, off, 0); }
    static Insn stxw(int dst, int src, int off) { return new Insn(STX | MEM | W, dst, src, off, 0); }
    static Insn addi(int dst, int imm) { return new Insn(ALU64 | ADD | K, dst, 0, 0, imm); }
    static Insn mov(int dst, int imm) { return new Insn(ALU64 | MOV | K, dst, 0, 0, imm); }
    static Insn movr(int dst, int src) { return new Insn(ALU64 | MOV | X, dst, src, 0, 0); }
    static Insn mov32r(int dst, int src) { return new Insn(ALU | MOV | X, dst, src, 0, 0); }
    static Insn jle32(int dst, int src, int off) { return new Insn(JMP32 | JLE | X, dst, src, off, 0); }
    static Insn jlt(int dst, int src, int off) { return new Insn(JMP | JLT | X, dst, src, off, 0); }
    static Insn jeqi(int dst, int imm, int off) { return new Insn(JMP | JEQ | K, dst, 0, off, imm); }
    static Insn ja(int off) { return new Insn(JMP | JA, 0, 0, off, 0); }
    static Insn ldxb(int dst, int src, int off) { return new Insn(LDX | MEM | B, dst, src, off, 0); }
    static Insn lshi(int dst, int imm) { return new Insn(ALU64 | LSH | K, dst, 0, 0, imm); }
    static Insn ldxdw(int dst, int src, int off) { return new Insn(LDX | MEM | DW, dst, src, off, 0); }
    static Insn exit() { return new Insn(JMP | EXIT, 0, 0, 0, 0); }

    static Program prog(Insn... insns) { return new Program("pairs", List.of(insns)); }

    /** r0, or the error, and the region's two words after the run. */
    record Outcome(Long r0, ErrorKind kind, int pc, long address, long lo, long hi) {}

    /** Runs {@code p} twice (the second run starts with the window the first one found) on a fresh region. */
    static Outcome run(Engine engine, Program p, long r3, long budget) {
        long mem = NativeMemory.allocate(LEN);
        try {
            NativeMemory.putInt(mem, 5);
            NativeMemory.putInt(mem + 4, 9);
            NativeMemory.putInt(mem + 8, -1);
            NativeMemory.putInt(mem + 12, 3);
            RunContext c = RunContext.builder().arg(1, mem).arg(3, r3).budget(budget)
                    .region(new MemoryRegion("ctx", mem, LEN, true)).build();
            Long r0 = null;
            ErrorKind kind = null;
            int pc = -1;
            long address = 0;
            try (Executable e = engine.load(p, LoadOptions.defaults().withEntryArgs(3))) {
                e.run(c);
                r0 = e.run(c);
            } catch (BpfRuntimeException x) {
                kind = x.kind();
                pc = x.pc();
                address = x.address() == 0 ? 0 : x.address() - mem; // the region moves between runs
            }
            return new Outcome(r0, kind, pc, address, NativeMemory.getLong(mem), NativeMemory.getLong(mem + 8));
        } finally {
            NativeMemory.free(mem);
        }
    }

    /** Interpreter and JIT agree on {@code p} for each r3; returns the interpreter's outcomes. */
    static Outcome[] agree(Program p, long budget, long... r3s) {
        Outcome[] out = new Outcome[r3s.length];
        for (int i = 0; i < r3s.length; i++) {
            out[i] = run(Engines.byName("interp"), p, r3s[i], budget);
            assertThat(run(Engines.byName("jit"), p, r3s[i], budget)).as("jit vs interp, r3 = %d", r3s[i]).isEqualTo(out[i]);
        }
        return out;
    }

    @Test
    void loadAndJump32() {
        Outcome[] o = agree(prog(movr(0, 3), ldxw(6, 1, 4), jle32(0, 6, 2), mov(0, 100), exit(), movr(0, 6), exit()),
                1_000_000, 9, 0x1_0000_0009L, 10);
        assertThat(o).extracting(Outcome::r0).containsExactly(9L, 9L, 100L);
        // a jump into the pair's second slot
        o = agree(prog(mov(0, 1), mov(6, 7), jeqi(3, 0, 1), ldxw(6, 1, 0), jle32(0, 6, 1), exit(), movr(0, 6), exit()), 1_000_000, 0, 1);
        assertThat(o).extracting(Outcome::r0).containsExactly(7L, 5L);
    }

    @Test
    void loadFaultAndBudget() {
        Outcome o = agree(prog(mov(0, 1), ldxw(6, 1, 14), jle32(0, 6, 1), exit(), mov(0, 2), exit()), 1_000_000, 0)[0];
        assertThat(o.kind()).isEqualTo(ErrorKind.OUT_OF_BOUNDS);
        assertThat(o.pc()).isEqualTo(1);
        assertThat(o.address()).isEqualTo(14);
        o = agree(prog(mov(2, 0), addi(2, 1), ldxw(6, 1, 8), jle32(2, 6, -3), movr(0, 2), exit()), 50, 0)[0];
        assertThat(o.kind()).isEqualTo(ErrorKind.BUDGET_EXCEEDED);
        assertThat(o.pc()).isEqualTo(3);
        assertThat(agree(prog(mov(2, 0), addi(2, 1), ldxw(6, 1, 4), jle32(2, 6, -3), movr(0, 2), exit()), 1_000_000, 0)[0].r0())
                .isEqualTo(10);
    }

    @Test
    void twoStores() {
        Outcome o = agree(prog(mov(2, 0x11), mov(4, 0x22), stxw(1, 2, 8), stxw(1, 4, 12), ldxdw(0, 1, 8), exit()), 1_000_000, 0)[0];
        assertThat(o.r0()).isEqualTo(0x22_0000_0011L);
        assertThat(agree(prog(mov(2, 0x11), mov(4, 0x22), stxw(1, 2, 4), stxw(1, 4, 4), ldxdw(0, 1, 0), exit()), 1_000_000, 0)[0].r0())
                .isEqualTo(0x22_0000_0005L);
        // a fault in the first store (nothing written) and in the second (the first written)
        o = agree(prog(mov(2, 0x11), mov(4, 0x22), stxw(1, 2, 14), stxw(1, 4, 0), mov(0, 0), exit()), 1_000_000, 0)[0];
        assertThat(o.kind()).isEqualTo(ErrorKind.OUT_OF_BOUNDS);
        assertThat(o.pc()).isEqualTo(2);
        assertThat(o.lo()).isEqualTo(0x9_0000_0005L);
        o = agree(prog(mov(2, 0x11), mov(4, 0x22), stxw(1, 2, 0), stxw(1, 4, -4), mov(0, 0), exit()), 1_000_000, 0)[0];
        assertThat(o.kind()).isEqualTo(ErrorKind.OUT_OF_BOUNDS);
        assertThat(o.pc()).isEqualTo(3);
        assertThat(o.address()).isEqualTo(-4);
        assertThat(o.lo()).isEqualTo(0x9_0000_0011L);
        // a jump into the second store, and the pair through a pointer into the stack
        Outcome[] j = agree(prog(mov(2, 0x11), mov(4, 0x22), jeqi(3, 0, 1), stxw(1, 2, 0), stxw(1, 4, 4), ldxdw(0, 1, 0), exit()),
                1_000_000, 0, 1);
        assertThat(j).extracting(Outcome::r0).containsExactly(0x22_0000_0005L, 0x22_0000_0011L);
        assertThat(agree(prog(mov(2, 1), mov(4, 2), movr(5, 10), addi(5, -8), stxw(5, 2, 0), stxw(5, 4, 4), ldxdw(0, 10, -8), exit()),
                1_000_000, 0)[0].r0()).isEqualTo(0x2_0000_0001L);
    }

    @Test
    void addsAndMov32Jumps() {
        Outcome[] o = agree(prog(mov(0, 1), jeqi(3, 0, 1), addi(0, 0x7fff_ffff), addi(0, 4), exit()), 1_000_000, 0, 1);
        assertThat(o).extracting(Outcome::r0).containsExactly(5L, 0x8000_0004L);
        o = agree(prog(mov(6, -7), mov(5, 4), mov32r(0, 6), jlt(5, 3, 1), addi(0, 100), exit()), 1_000_000, 5, 4);
        assertThat(o).extracting(Outcome::r0).containsExactly(0xffff_fff9L, 0xffff_fff9L + 100);
        Outcome b = agree(prog(mov(2, 3), addi(2, 1), mov32r(0, 2), ja(-3), exit()), 20, 0)[0];
        assertThat(b.kind()).isEqualTo(ErrorKind.BUDGET_EXCEEDED);
        assertThat(b.pc()).isEqualTo(3);
        b = agree(prog(mov(5, 0), addi(5, 1), mov32r(0, 5), jlt(5, 3, -3), exit()), 10, 40)[0];
        assertThat(b.kind()).isEqualTo(ErrorKind.BUDGET_EXCEEDED);
        assertThat(b.pc()).isEqualTo(3);
        assertThat(agree(prog(mov(5, 0), addi(5, 1), mov32r(0, 5), jlt(5, 3, -3), exit()), 1000, 40)[0].r0()).isEqualTo(40);
    }

    @Test
    void byteLoadAndShift() {
        assertThat(agree(prog(ldxb(2, 1, 4), lshi(2, 24), movr(0, 2), exit()), 1_000_000, 0)[0].r0()).isEqualTo(9L << 24);
        assertThat(agree(prog(ldxb(2, 1, 8), lshi(2, 56), movr(0, 2), exit()), 1_000_000, 0)[0].r0()).isEqualTo(0xffL << 56);
        // the shift names another register; a jump into the shift
        assertThat(agree(prog(ldxb(6, 1, 12), lshi(3, 4), movr(0, 6), new Insn(ALU64 | ADD | X, 0, 3, 0, 0), exit()), 1_000_000, 0x10)[0].r0())
                .isEqualTo(3 + 0x100);
        Outcome[] o = agree(prog(mov(2, 3), jeqi(3, 0, 1), ldxb(2, 1, 0), lshi(2, 8), movr(0, 2), exit()), 1_000_000, 0, 1);
        assertThat(o).extracting(Outcome::r0).containsExactly(3L << 8, 5L << 8);
        // a fault in the load: its pc and address, the shift not run
        Outcome f = agree(prog(mov(2, 1), ldxb(2, 1, 16), lshi(2, 8), movr(0, 2), exit()), 1_000_000, 0)[0];
        assertThat(f.kind()).isEqualTo(ErrorKind.OUT_OF_BOUNDS);
        assertThat(f.pc()).isEqualTo(1);
        assertThat(f.address()).isEqualTo(16);
    }
}
