package dev.bpf4j.jit;

import static dev.bpf4j.isa.Opcodes.*;

/** Reference eBPF arithmetic (RFC 9669 + docs/runtime-semantics.md), written independently of the JIT. */
final class Ref {
    private Ref() {}

    static long alu(int op, boolean w, boolean signed, long a, long b) {
        if (!w) return alu32(op, signed, (int) a, (int) b) & 0xffffffffL;
        switch (op) {
            case ADD: return a + b;
            case SUB: return a - b;
            case MUL: return a * b;
            case DIV:
                if (b == 0) return 0;
                if (signed) return b == -1 ? -a : a / b;
                return Long.divideUnsigned(a, b);
            case MOD:
                if (b == 0) return a;
                if (signed) return b == -1 ? 0 : a % b;
                return Long.remainderUnsigned(a, b);
            case OR: return a | b;
            case AND: return a & b;
            case XOR: return a ^ b;
            case LSH: return a << (b & 63);
            case RSH: return a >>> (b & 63);
            case ARSH: return a >> (b & 63);
            case NEG: return -a;
            case MOV: return b;
            default: throw new IllegalArgumentException("op " + op);
        }
    }

    private static int alu32(int op, boolean signed, int a, int b) {
        switch (op) {
            case ADD: return a + b;
            case SUB: return a - b;
            case MUL: return a * b;
            case DIV:
                if (b == 0) return 0;
                if (signed) return b == -1 ? -a : a / b;
                return Integer.divideUnsigned(a, b);
            case MOD:
                if (b == 0) return a;
                if (signed) return b == -1 ? 0 : a % b;
                return Integer.remainderUnsigned(a, b);
            case OR: return a | b;
            case AND: return a & b;
            case XOR: return a ^ b;
            case LSH: return a << (b & 31);
            case RSH: return a >>> (b & 31);
            case ARSH: return a >> (b & 31);
            case NEG: return -a;
            case MOV: return b;
            default: throw new IllegalArgumentException("op " + op);
        }
    }

    static boolean cond(int op, boolean w, long a, long b) {
        if (!w) { a = (int) a; b = (int) b; }
        long ua = w ? a : a & 0xffffffffL, ub = w ? b : b & 0xffffffffL;
        switch (op) {
            case JEQ: return ua == ub;
            case JNE: return ua != ub;
            case JGT: return Long.compareUnsigned(ua, ub) > 0;
            case JGE: return Long.compareUnsigned(ua, ub) >= 0;
            case JLT: return Long.compareUnsigned(ua, ub) < 0;
            case JLE: return Long.compareUnsigned(ua, ub) <= 0;
            case JSGT: return a > b;
            case JSGE: return a >= b;
            case JSLT: return a < b;
            case JSLE: return a <= b;
            case JSET: return (ua & ub) != 0;
            default: throw new IllegalArgumentException("op " + op);
        }
    }
}
