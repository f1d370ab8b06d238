package dev.bpf4j.jit.compiler;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.jit.x86.Shift;
import dev.bpf4j.jit.x86.X86Encoder;

/**
 * div/mod/sdiv/smod. x86 {@code div} works on rdx:rax (BPF R3:R0); those two are parked in the
 * scratch registers r10/r11 around it unless they are the destination (no stack traffic). Division
 * by zero and the signed overflow case {@code MIN / -1} (which would raise #DE) are branched around,
 * giving eBPF's results: x / 0 = 0, x % 0 = x, MIN / -1 = MIN (neg), MIN % -1 = 0. Unsigned
 * division by a constant needs no {@code div}: a power of two is a shift or a mask, any other
 * divisor a multiply-high ({@link DivisionMagic}), as gcc compiles it. Flags need no saving: no BPF
 * value lives in them.
 */
final class DivModEmitter {
    private DivModEmitter() {}

    private static final X86Reg SAVED_RAX = RegMap.AUX, SAVED_RDX = RegMap.AUX2;

    static void emit(X86Encoder e, boolean w, boolean mod, boolean signed, boolean x, X86Reg dst, Insn i) {
        if (!x) {
            int k = i.imm();
            if (k == 0) { byZero(e, w, mod, dst); return; }
            if (signed && k == -1) { byMinusOne(e, w, mod, dst); return; }
            if (!signed) {
                ByConstant.emit(e, w, mod, dst, k);
                return;
            }
            if (w) e.loadImm64(RegMap.AUX2, k);               /* mov r11, simm32 */
            else e.movImm32(RegMap.AUX2, k);                  /* mov r11d, imm32 */
            divideByR11(e, w, mod, true, dst);
            return;
        }
        X86Reg src = RegMap.x86(i.src());
        e.testRR(w, src, src);                                /* test src, src */
        int zero = e.jccForward8(Cond.E);                     /* je .zero */
        int minusOne = -1;
        if (signed) {
            e.aluRI(AluOp.CMP, w, src, -1);                   /* cmp src, -1 */
            minusOne = e.jccForward8(Cond.E);                 /* je .minus_one */
        }
        divideByRegister(e, w, mod, signed, dst, src);
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

    /**
     * {@code dst = dst / src} (or %) for a non-zero divisor register. rax/rdx go to r10/r11; when
     * the divisor is rax or rdx itself, its parked copy is the divisor (div leaves it unchanged).
     */
    private static void divideByRegister(X86Encoder e, boolean w, boolean mod, boolean signed, X86Reg dst, X86Reg src) {
        X86Reg divisor = src;
        if (src == X86Reg.RAX) divisor = SAVED_RAX;
        else if (src == X86Reg.RDX) divisor = SAVED_RDX;
        if (dst != X86Reg.RAX || src == X86Reg.RAX) e.movRR(true, SAVED_RAX, X86Reg.RAX); /* mov r10, rax */
        if (dst != X86Reg.RDX || src == X86Reg.RDX) e.movRR(true, SAVED_RDX, X86Reg.RDX); /* mov r11, rdx */
        if (dst != X86Reg.RAX) e.movRR(true, X86Reg.RAX, dst);      /* mov rax, dst (rdx is still intact) */
        if (signed) e.signExtendAx(w);                        /* cqo | cdq */
        else e.aluRR(AluOp.XOR, false, X86Reg.RDX, X86Reg.RDX);     /* xor edx, edx */
        e.div(w, signed, divisor);                            /* div|idiv divisor */
        finish(e, w, mod, dst);
    }

    /** {@code dst = dst / r11} (or %), r11 a non-zero constant divisor: rax is parked in r10, rdx on the stack. */
    private static void divideByR11(X86Encoder e, boolean w, boolean mod, boolean signed, X86Reg dst) {
        if (dst != X86Reg.RAX) e.push(X86Reg.RAX);                  /* push rax */
        if (dst != X86Reg.RDX) e.push(X86Reg.RDX);                  /* push rdx */
        if (dst != X86Reg.RAX) e.movRR(true, X86Reg.RAX, dst);      /* mov rax, dst */
        if (signed) e.signExtendAx(w);                        /* cqo | cdq */
        else e.aluRR(AluOp.XOR, false, X86Reg.RDX, X86Reg.RDX);     /* xor edx, edx */
        e.div(w, signed, RegMap.AUX2);                        /* div|idiv r11 */
        X86Reg result = mod ? X86Reg.RDX : X86Reg.RAX;
        if (dst != result) e.movRR(w, dst, result);           /* mov dst, rax|rdx */
        if (dst != X86Reg.RDX) e.pop(X86Reg.RDX);                   /* pop rdx */
        if (dst != X86Reg.RAX) e.pop(X86Reg.RAX);                   /* pop rax */
    }

    /** Moves the quotient (rax) or remainder (rdx) to dst and restores the parked rax/rdx. */
    private static void finish(X86Encoder e, boolean w, boolean mod, X86Reg dst) {
        X86Reg result = mod ? X86Reg.RDX : X86Reg.RAX;
        if (dst != result) e.movRR(w, dst, result);           /* mov dst, rax|rdx */
        else if (!w && mod) e.movRR(false, dst, dst);         /* (edx already zero-extended by div) */
        if (dst != X86Reg.RAX) e.movRR(true, X86Reg.RAX, SAVED_RAX); /* mov rax, r10 */
        if (dst != X86Reg.RDX) e.movRR(true, X86Reg.RDX, SAVED_RDX); /* mov rdx, r11 */
    }

    static void byZero(X86Encoder e, boolean w, boolean mod, X86Reg dst) {
        if (!mod) e.aluRR(AluOp.XOR, false, dst, dst);        /* xor dst32, dst32: x / 0 = 0 */
        else if (!w) e.movRR(false, dst, dst);                /* mov dst32, dst32: x % 0 = x, zero-extended */
    }

    private static void byMinusOne(X86Encoder e, boolean w, boolean mod, X86Reg dst) {
        if (!mod) e.neg(w, dst);                              /* neg dst: x / -1 = -x (MIN stays MIN) */
        else e.aluRR(AluOp.XOR, false, dst, dst);             /* xor dst32, dst32: x % -1 = 0 */
    }

    /** Unsigned division by a non-zero constant: no {@code div} instruction. */
    static final class ByConstant {
        private ByConstant() {}

        static void emit(X86Encoder e, boolean w, boolean mod, X86Reg dst, int imm) {
            long d = w ? imm : imm & 0xffffffffL;             // ALU64 sign-extends imm, ALU32 uses its 32 bits
            if (d == 1) {
                if (mod) e.aluRR(AluOp.XOR, false, dst, dst); /* xor dst32, dst32: x % 1 = 0 */
                else if (!w) e.movRR(false, dst, dst);        /* mov dst32, dst32 */
                return;
            }
            if (Long.bitCount(d) == 1) {
                if (mod) {
                    e.aluRI(AluOp.AND, w, dst, (int) (d - 1)); /* and dst, d - 1 */
                } else {
                    e.shiftImm(Shift.SHR, w, dst, Long.numberOfTrailingZeros(d)); /* shr dst, log2 d */
                }
                return;
            }
            DivisionMagic magic = DivisionMagic.of(d);
            if (!w) e.movRR(false, dst, dst);                 /* mov dst32, dst32 (the 32-bit dividend) */
            e.movRR(true, SAVED_RAX, X86Reg.RAX);                /* mov r10, rax (parked, or the dividend) */
            e.movRR(true, SAVED_RDX, X86Reg.RDX);                /* mov r11, rdx (parked, or the dividend) */
            X86Reg n = dst == X86Reg.RAX ? SAVED_RAX : dst == X86Reg.RDX ? SAVED_RDX : dst;
            e.movabs(X86Reg.RAX, magic.multiplier());            /* movabs rax, magic */
            e.mulWide(n);                                     /* mul n: rdx = mulhi(n, magic) */
            X86Reg q = X86Reg.RDX;
            if (magic.add()) {
                e.movRR(true, X86Reg.RAX, n);                    /* mov rax, n */
                e.aluRR(AluOp.SUB, true, X86Reg.RAX, X86Reg.RDX);   /* sub rax, rdx */
                e.shiftImm(Shift.SHR, true, X86Reg.RAX, 1);      /* shr rax, 1 */
                e.aluRR(AluOp.ADD, true, X86Reg.RAX, X86Reg.RDX);   /* add rax, rdx */
                q = X86Reg.RAX;
            }
            if (magic.shift() > 0) e.shiftImm(Shift.SHR, true, q, magic.shift()); /* shr q, shift */
            if (mod) {
                e.imulRRI(true, q, q, imm);                   /* imul q, q, imm (q * d, low bits) */
                e.aluRR(AluOp.SUB, true, n, q);               /* sub n, q: the remainder */
                q = n;
            }
            if (dst != q) e.movRR(w, dst, q);                 /* mov dst, q */
            else if (!w) e.movRR(false, dst, dst);            /* mov dst32, dst32 */
            if (dst != X86Reg.RAX) e.movRR(true, X86Reg.RAX, SAVED_RAX); /* mov rax, r10 */
            if (dst != X86Reg.RDX) e.movRR(true, X86Reg.RDX, SAVED_RDX); /* mov rdx, r11 */
        }
    }
}
