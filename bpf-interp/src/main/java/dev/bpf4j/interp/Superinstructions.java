package dev.bpf4j.interp;

import static dev.bpf4j.interp.InsnCode.*;
import static dev.bpf4j.isa.Opcodes.*;

/**
 * Fuses common instruction pairs of compiled BPF into one dispatch (see {@link InsnCode}): clang
 * emits {@code rX = rY; rX op= K} for every 3-address operation, and a few pairs in every loop
 * over an array. Only the first slot of a pair is rewritten; the second keeps its word, so a jump
 * into it, and every pc an error names, stay as they were. The halves of a {@code mov} pair cannot
 * fail. A pair whose first half is a checked load or store runs in {@link HotLoop} only when its
 * accesses are inside the window; otherwise {@link Interpreter} runs the first half alone, as the
 * plain instruction (the fused word keeps its fields), and the second slot then runs from its own
 * word, so every error has the kind, pc and address of the pair run apart. A fused jump that
 * has no budget for its back-edge returns the jump's own pc, after the first half ran.
 */
final class Superinstructions {
    private Superinstructions() {}

    /** Rewrites {@code code} in place; {@code code[end - 1]} is the trap slot (constants follow). */
    static void fuse(long[] code, int end) {
        for (int pc = 0; pc + 1 < end - 1; pc++) {
            long first = code[pc], second = code[pc + 1];
            long loop = loopPair(first, second);
            if (loop != 0) {
                code[pc] = loop;
                continue;
            }
            int x = dst(first);
            if (dst(second) != x) continue;
            int fused;
            if (opcode(first) == (ALU64 | MOV | X) && off(first) == 0) fused = mov64(second, x);
            else if (opcode(first) == (ALU | MOV | X) && off(first) == 0) fused = mov32(second);
            else continue;
            if (fused < 0) continue;
            boolean k = (opcode(second) & X) == 0; // an X op's rZ is read from the second slot's word
            code[pc] = pack(fused, x, src(first), 0, k ? imm(second) : 0);
        }
    }

    /**
     * The pairs clang emits in a loop over an array (sort's inner loop): a checked 32-bit load and
     * the 32-bit compare-and-jump on it, two checked 32-bit stores, two counters stepped by
     * immediates, {@code wX = wY} before the loop's jump; and where a parser assembles a big-endian
     * field from bytes, a checked byte load and a 64-bit shift by an immediate. The fused word is
     * the first instruction's word with another opcode; the fused case reads the second half from
     * the next slot's own word. Returns the fused word, or 0.
     */
    private static long loopPair(long first, long second) {
        int fused;
        switch (opcode(first)) {
            case LDX | MEM | W: fused = opcode(second) == (JMP32 | JLE | X) ? LDXW_JLE32_X : 0; break;
            case LDX | MEM | B: fused = opcode(second) == (ALU64 | LSH | K) ? LDXB_LSH_K : 0; break;
            case STX | MEM | W: fused = opcode(second) == (STX | MEM | W) ? STXW_STXW : 0; break;
            case ALU64 | ADD | K: fused = opcode(second) == (ALU64 | ADD | K) ? ADD_ADD_K : 0; break;
            case ALU | MOV | X: // a plain mov32 (movsx has its own opcode by now)
                fused = opcode(second) == (JMP | JLT | X) ? MOV32_JLT_X : opcode(second) == (JMP | JA) ? MOV32_JA : 0;
                break;
            default: fused = 0;
        }
        return fused == 0 ? 0 : (first & ~0xffL) | fused;
    }

    /** The fused opcode for {@code rX = rY} followed by {@code second}, or -1. */
    private static int mov64(long second, int x) {
        int op = opcode(second);
        if (cls(op) != ALU64) return -1;
        boolean k = source(op) == K;
        if (!k && src(second) == x) return -1; // rX op= rX reads the moved value: not a 3-address op
        if ((op(op) == DIV || op(op) == MOD) && off(second) != 0) return -1; // signed forms stay apart
        switch (op) {
            case ALU64 | ADD | K: return MOV_ADD_K;
            case ALU64 | ADD | X: return MOV_ADD_X;
            case ALU64 | SUB | K: return MOV_SUB_K;
            case ALU64 | SUB | X: return MOV_SUB_X;
            case ALU64 | MUL | K: return MOV_MUL_K;
            case ALU64 | MUL | X: return MOV_MUL_X;
            case ALU64 | OR | K: return MOV_OR_K;
            case ALU64 | OR | X: return MOV_OR_X;
            case ALU64 | AND | K: return MOV_AND_K;
            case ALU64 | AND | X: return MOV_AND_X;
            case ALU64 | LSH | K: return MOV_LSH_K;
            case ALU64 | LSH | X: return MOV_LSH_X;
            case ALU64 | RSH | K: return MOV_RSH_K;
            case ALU64 | RSH | X: return MOV_RSH_X;
            case ALU64 | XOR | K: return MOV_XOR_K;
            case ALU64 | XOR | X: return MOV_XOR_X;
            case ALU64 | ARSH | K: return MOV_ARSH_K;
            case ALU64 | DIV | K: return MOV_DIV_K;
            case ALU64 | DIV | X: return MOV_DIV_X;
            case ALU64 | MOD | K: return MOV_MOD_K;
            case ALU64 | MOD | X: return MOV_MOD_X;
            default: return -1;
        }
    }

    /** The fused opcode for {@code wX = wY} followed by {@code second}, or -1. */
    private static int mov32(long second) {
        switch (opcode(second)) {
            case ALU | AND | K: return MOV32_AND_K;
            case ALU | ADD | K: return MOV32_ADD_K;
            case ALU | LSH | K: return MOV32_LSH_K;
            case ALU | RSH | K: return MOV32_RSH_K;
            default: return -1;
        }
    }
}
