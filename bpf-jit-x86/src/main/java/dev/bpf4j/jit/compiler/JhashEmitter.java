package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.Shift;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.stack.Jhash;

/**
 * The kernel's {@code jhash2(k, length, 0)} (include/linux/jhash.h) as native code, step for step
 * as {@link Jhash#jhash2}: a = eax, b = edx, c = r8d, the words at rsi, the count in edi.
 */
final class JhashEmitter {
    private JhashEmitter() {}

    private static final X86Reg A = X86Reg.RAX, B = X86Reg.RDX, C = X86Reg.R8, T = X86Reg.R11, K = X86Reg.RSI, LEN = X86Reg.RDI;

    /** r8d = jhash2(rsi, edi words, 0) for edi &gt; 0. Clobbers rax, rdx, rsi, rdi, r11. */
    static void jhash2(X86Encoder e) {
        e.lea(A, Mem.of(LEN, 0));                                                /* lea rax, [rdi] */
        e.shiftImm(Shift.SHL, false, A, 2);                                      /* shl eax, 2 (length << 2) */
        e.aluRI(AluOp.ADD, false, A, Jhash.INITVAL);                             /* add eax, JHASH_INITVAL */
        e.movRR(false, B, A);                                                    /* mov edx, eax */
        e.movRR(false, C, A);                                                    /* mov r8d, eax */
        int loop = e.position();                                                 /* .loop: */
        e.aluRI(AluOp.CMP, false, LEN, 3);                                       /* cmp edi, 3 */
        int tail = e.jccForward32(Cond.BE);                                      /* jbe .tail */
        e.aluRM(AluOp.ADD, false, A, Mem.of(K, 0));                              /* add eax, [rsi] */
        e.aluRM(AluOp.ADD, false, B, Mem.of(K, 4));                              /* add edx, [rsi + 4] */
        e.aluRM(AluOp.ADD, false, C, Mem.of(K, 8));                              /* add r8d, [rsi + 8] */
        // __jhash_mix
        subXorRotAdd(e, A, C, 4, B);
        subXorRotAdd(e, B, A, 6, C);
        subXorRotAdd(e, C, B, 8, A);
        subXorRotAdd(e, A, C, 16, B);
        subXorRotAdd(e, B, A, 19, C);
        subXorRotAdd(e, C, B, 4, A);
        e.aluRI(AluOp.SUB, false, LEN, 3);                                       /* sub edi, 3 */
        e.aluRI(AluOp.ADD, true, K, 12);                                         /* add rsi, 12 */
        e.jmpTo(loop);                                                           /* jmp .loop */
        e.bind32(tail);                                                          /* .tail: 1 to 3 words left */
        e.aluRI(AluOp.CMP, false, LEN, 2);                                       /* cmp edi, 2 */
        int two = e.jccForward8(Cond.E);                                         /* je .two */
        int one = e.jccForward8(Cond.B);                                         /* jb .one */
        e.aluRM(AluOp.ADD, false, C, Mem.of(K, 8));                              /* add r8d, [rsi + 8] (case 3) */
        e.bind(two);                                                             /* .two: */
        e.aluRM(AluOp.ADD, false, B, Mem.of(K, 4));                              /* add edx, [rsi + 4] */
        e.bind(one);                                                             /* .one: */
        e.aluRM(AluOp.ADD, false, A, Mem.of(K, 0));                              /* add eax, [rsi] */
        // __jhash_final
        xorSubRot(e, C, B, 14);
        xorSubRot(e, A, C, 11);
        xorSubRot(e, B, A, 25);
        xorSubRot(e, C, B, 16);
        xorSubRot(e, A, C, 4);
        xorSubRot(e, B, A, 14);
        xorSubRot(e, C, B, 24);
    }

    /** {@code x -= y; x ^= rol32(y, n); y += z}. */
    private static void subXorRotAdd(X86Encoder e, X86Reg x, X86Reg y, int n, X86Reg z) {
        e.aluRR(AluOp.SUB, false, x, y);                                         /* sub x, y */
        e.movRR(false, T, y);                                                    /* mov r11d, y */
        e.shiftImm(Shift.ROL, false, T, n);                                      /* rol r11d, n */
        e.aluRR(AluOp.XOR, false, x, T);                                         /* xor x, r11d */
        e.aluRR(AluOp.ADD, false, y, z);                                         /* add y, z */
    }

    /** {@code x ^= y; x -= rol32(y, n)}. */
    private static void xorSubRot(X86Encoder e, X86Reg x, X86Reg y, int n) {
        e.aluRR(AluOp.XOR, false, x, y);                                         /* xor x, y */
        e.movRR(false, T, y);                                                    /* mov r11d, y */
        e.shiftImm(Shift.ROL, false, T, n);                                      /* rol r11d, n */
        e.aluRR(AluOp.SUB, false, x, T);                                         /* sub x, r11d */
    }
}
