package dev.bpf4j.interp;

import static dev.bpf4j.interp.InsnCode.*;
import static dev.bpf4j.isa.Opcodes.*;

/**
 * Fuses common instruction pairs of compiled BPF into one dispatch (see {@link InsnCode}): clang
 * emits {@code rX = rY; rX op= K} for every 3-address operation. Only the first slot of a pair is
 * rewritten; the second keeps its word, so a jump into it, and every pc an error names, stay as
 * they were. Neither half of a fused pair can fail, so no error can come from a fused slot.
 */
final class Superinstructions {
    private Superinstructions() {}

    /** Rewrites {@code code} in place; {@code code[end - 1]} is the trap slot (constants follow). */
    static void fuse(long[] code, int end) {
        for (int pc = 0; pc + 1 < end - 1; pc++) {
            long first = code[pc], second = code[pc + 1];
            int x = dst(first);
            if (dst(second) != x) continue;
            int fused;
            if (opcode(first) == (ALU64 | MOV | X) && off(first) == 0) fused = mov64(second, x);
            else if (opcode(first) == (ALU | MOV | X) && off(first) == 0) fused = mov32(second);
            else continue;
            if (fused < 0) continue;
            boolean k = (opcode(second) & X) == 0;
            code[pc] = pack(fused, x, src(first), k ? 0 : src(second), k ? imm(second) : 0);
        }
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
