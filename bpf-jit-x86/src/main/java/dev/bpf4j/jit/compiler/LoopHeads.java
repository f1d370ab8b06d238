package dev.bpf4j.jit.compiler;

import dev.bpf4j.isa.Insn;

/**
 * The slots a backward jump targets (loop heads). The translator starts each one on a 64-byte
 * boundary (a cache line), padding with NOPs that run at most once per entry into the loop (never
 * when the code before it ends in a jump), as compilers align loops: otherwise a hot loop's speed
 * depends on where earlier code happened to end — bubble sort ran 30% slower when the entry
 * prologue grew by 27 bytes, and 20% slower with 32-byte alignment when it grew by 240
 * (docs/jit-performance.md, "Loop alignment").
 */
final class LoopHeads {
    private LoopHeads() {}

    /** Loop-head alignment in bytes: 16 did not help bubble sort; 32 did only while the code before the loop kept its offset modulo 64. */
    static final int ALIGNMENT = 64;

    /** {@code -Dbpf4j.jit.alignLoops=false} turns the padding off (read at each compile, for A/B timing). */
    static boolean enabled() { return Switches.on("bpf4j.jit.alignLoops"); }

    /** {@code heads[pc]}: some jump at or after {@code pc} goes back to it. */
    static boolean[] of(Insn[] insns) {
        boolean[] heads = new boolean[insns.length + 1];
        for (int pc = 0; pc < insns.length; pc++) {
            int target = insns[pc].jumpTarget(pc); // -1: no jump
            if (target >= 0 && target <= pc) heads[target] = true;
            if (insns[pc].isLddw()) pc++;
        }
        return heads;
    }
}
