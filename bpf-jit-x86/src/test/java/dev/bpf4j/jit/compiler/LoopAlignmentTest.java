package dev.bpf4j.jit.compiler;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.program.Program;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Loop heads (targets of backward jumps) start on a 64-byte boundary (a cache line); other slots are not padded. */
class LoopAlignmentTest {
    @AfterEach void clear() { System.clearProperty("bpf4j.jit.alignLoops"); }

    /** r0 = 0; r1 = 10; outer: r2 = 3; inner: r0 += 1; r2 -= 1; if r2 != 0 goto inner; r1 -= 1; if r1 != 0 goto outer; exit. */
    private static Program nested() {
        return new Program("nested", List.of(
                new Insn(Opcodes.ALU64 | Opcodes.K | Opcodes.MOV, 0, 0, 0, 0),
                new Insn(Opcodes.ALU64 | Opcodes.K | Opcodes.MOV, 1, 0, 0, 10),
                new Insn(Opcodes.ALU64 | Opcodes.K | Opcodes.MOV, 2, 0, 0, 3),       // 2: outer
                new Insn(Opcodes.ALU64 | Opcodes.K | Opcodes.ADD, 0, 0, 0, 1),       // 3: inner
                new Insn(Opcodes.ALU64 | Opcodes.K | Opcodes.SUB, 2, 0, 0, 1),
                new Insn(Opcodes.JMP | Opcodes.K | Opcodes.JNE, 2, 0, -3, 0),        // goto inner
                new Insn(Opcodes.ALU64 | Opcodes.K | Opcodes.SUB, 1, 0, 0, 1),
                new Insn(Opcodes.JMP | Opcodes.K | Opcodes.JNE, 1, 0, -6, 0),        // goto outer
                new Insn(Opcodes.JMP | Opcodes.EXIT, 0, 0, 0, 0)));
    }

    @Test
    void loopHeadsStartOnACacheLine() {
        assertThat(LoopHeads.of(nested().toArray())).containsExactly(false, false, true, true, false, false, false, false, false, false);
        int[] at = JitCompiler.compile(nested(), Map.of(), 1).layout().pcOffsets();
        assertThat(LoopHeads.ALIGNMENT).isEqualTo(64);
        assertThat(at[2] % 64).as("outer head at %x", at[2]).isZero();
        assertThat(at[3] % 64).as("inner head at %x", at[3]).isZero();
    }

    @Test
    void turnedOffNothingIsPadded() {
        System.setProperty("bpf4j.jit.alignLoops", "false");
        CompiledProgram off = JitCompiler.compile(nested(), Map.of(), 1);
        System.clearProperty("bpf4j.jit.alignLoops");
        CompiledProgram on = JitCompiler.compile(nested(), Map.of(), 1);
        assertThat(on.size()).isGreaterThan(off.size());
        int[] a = off.layout().pcOffsets(), b = on.layout().pcOffsets();
        // the padding sits right before each head: the straight-line slots keep their sizes
        for (int pc : new int[]{0, 3, 4, 5, 6, 7}) assertThat(b[pc + 1] - b[pc]).as("pc %d", pc).isEqualTo(a[pc + 1] - a[pc]);
    }
}
