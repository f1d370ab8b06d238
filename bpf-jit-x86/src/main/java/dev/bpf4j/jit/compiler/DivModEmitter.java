package dev.bpf4j.jit.compiler;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Reg;
import dev.bpf4j.jit.x86.X86Encoder;

/**
 * div/mod/sdiv/smod. x86 {@code div} works on rdx:rax (BPF R3:R0), so those two are saved around
 * it unless they are the destination. Division by zero and the signed overflow case
 * {@code MIN / -1} (which would raise #DE) are branched around, giving eBPF's results:
 * x / 0 = 0, x % 0 = x, MIN / -1 = MIN (neg), MIN % -1 = 0. Flags need no saving: no BPF value
 * lives in them.
 */
final class DivModEmitter {
    private DivModEmitter() {}

    static void emit(X86Encoder e, boolean w, boolean mod, boolean signed, boolean x, Reg dst, Insn i) {
        Reg divisor = RegMap.AUX2;
        if (!x) {
            int k = i.imm();
            if (k == 0) { byZero(e, w, mod, dst); return; }
            if (signed && k == -1) { byMinusOne(e, w, mod, dst); return; }
            if (w) e.loadImm64(divisor, k);                   /* mov r11, simm32 */
            else e.movImm32(divisor, k);                      /* mov r11d, imm32 */
            divide(e, w, mod, signed, dst);
            return;
        }
        e.movRR(w, divisor, RegMap.x86(i.src()));             /* mov r11, src */
        e.testRR(w, divisor, divisor);                        /* test r11, r11 */
        int zero = e.jccForward8(Cond.E);                     /* je .zero */
        int minusOne = -1;
        if (signed) {
            e.aluRI(AluOp.CMP, w, divisor, -1);               /* cmp r11, -1 */
            minusOne = e.jccForward8(Cond.E);                 /* je .minus_one */
        }
        divide(e, w, mod, signed, dst);
        int done = e.jmpForward8();                           /* jmp .done */
        e.bind(zero);                                         /* .zero: */
        byZero(e, w, mod, dst);
        int done2 = -1;
        if (signed) {
            done2 = e.jmpForward8();                          /* jmp .done */
            e.bind(minusOne);                                 /* .minus_one: */
            byMinusOne(e, w, mod, dst);
        }
        e.bind(done);                                         /* .done: */
        if (done2 >= 0) e.bind(done2);
    }

    private static void divide(X86Encoder e, boolean w, boolean mod, boolean signed, Reg dst) {
        if (dst != Reg.RAX) e.push(Reg.RAX);                  /* push rax */
        if (dst != Reg.RDX) e.push(Reg.RDX);                  /* push rdx */
        if (dst != Reg.RAX) e.movRR(true, Reg.RAX, dst);      /* mov rax, dst */
        if (signed) e.signExtendAx(w);                        /* cqo | cdq */
        else e.aluRR(AluOp.XOR, false, Reg.RDX, Reg.RDX);     /* xor edx, edx */
        e.div(w, signed, RegMap.AUX2);                        /* div|idiv r11 */
        Reg result = mod ? Reg.RDX : Reg.RAX;
        if (dst != result) e.movRR(w, dst, result);           /* mov dst, rax|rdx */
        if (dst != Reg.RDX) e.pop(Reg.RDX);                   /* pop rdx */
        if (dst != Reg.RAX) e.pop(Reg.RAX);                   /* pop rax */
    }

    private static void byZero(X86Encoder e, boolean w, boolean mod, Reg dst) {
        if (!mod) e.aluRR(AluOp.XOR, false, dst, dst);        /* xor dst32, dst32: x / 0 = 0 */
        else if (!w) e.movRR(false, dst, dst);                /* mov dst32, dst32: x % 0 = x, zero-extended */
    }

    private static void byMinusOne(X86Encoder e, boolean w, boolean mod, Reg dst) {
        if (!mod) e.neg(w, dst);                              /* neg dst: x / -1 = -x (MIN stays MIN) */
        else e.aluRR(AluOp.XOR, false, dst, dst);             /* xor dst32, dst32: x % -1 = 0 */
    }
}
