package dev.bpf4j.jit.x86;

/**
 * Byte emitters for the x86-64 instruction forms the JIT uses. Each method writes exactly one
 * instruction; the Intel-syntax assembly is written beside it. {@code w} selects the 64-bit
 * operand size (REX.W); without it a 32-bit operation zero-extends its result into the full
 * register, which is exactly eBPF's 32-bit ALU rule.
 */
public final class X86Encoder extends X86EncoderBase {
    public X86Encoder(CodeBuffer buf) { super(buf); }

    // ---- moves -----------------------------------------------------------------------------

    /** {@code mov dst, src} (64 or 32 bit; the 32-bit form zero-extends). */
    public void movRR(boolean w, X86Reg dst, X86Reg src) {
        rexRR(w, src, dst, false);
        buf.emit8(0x89); /* mov r/m, r */
        modrmRR(src.code, dst);
    }

    /** {@code mov r32, imm32} (zero-extends into the 64-bit register). */
    public void movImm32(X86Reg dst, int imm) {
        rexR(false, dst, false);
        buf.emit8(0xb8 + dst.low3()); /* mov r32, imm32 */
        buf.emit32(imm);
    }

    /** {@code mov r64, simm32} (sign-extended). */
    public void movImmSx(X86Reg dst, int imm) {
        rexR(true, dst, false);
        buf.emit8(0xc7); /* mov r/m64, imm32 */
        modrmRR(0, dst);
        buf.emit32(imm);
    }

    /** {@code lea r64, [rip + disp32]} addressing the buffer offset {@code target}. */
    public void leaRip(X86Reg dst, int target) {
        buf.emit8(0x48 | (dst.extended() ? 0x04 : 0)); /* REX.W (+R) */
        buf.emit8(0x8d); /* lea r64, m */
        buf.emit8((dst.low3() << 3) | 0x05); /* ModRM: [rip + disp32] */
        buf.emit32(target - (buf.size() + 4));
    }

    /** {@code movabs r64, imm64}. */
    public void movabs(X86Reg dst, long imm) {
        rexR(true, dst, false);
        buf.emit8(0xb8 + dst.low3()); /* movabs r64, imm64 */
        buf.emit64(imm);
    }

    /** Shortest load of a 64-bit constant: xor, mov r32, mov r64 simm32 or movabs. */
    public void loadImm64(X86Reg dst, long imm) {
        if (imm == 0) aluRR(AluOp.XOR, false, dst, dst);           /* xor r32, r32 */
        else if ((imm & 0xffffffffL) == imm) movImm32(dst, (int) imm); /* mov r32, imm32 */
        else if ((int) imm == imm) movImmSx(dst, (int) imm);        /* mov r64, simm32 */
        else movabs(dst, imm);                                     /* movabs r64, imm64 */
    }

    /** {@code mov r, [m]} with the width of {@code w}. */
    public void load(boolean w, X86Reg dst, Mem m) {
        rexRM(w, dst, m, false);
        buf.emit8(0x8b); /* mov r, r/m */
        modrmMem(dst.code, m);
    }

    /** {@code movzx r32, byte [m]}. */
    public void loadZx8(X86Reg dst, Mem m) {
        rexRM(false, dst, m, false);
        buf.emit8(0x0f); buf.emit8(0xb6); /* movzx r32, r/m8 */
        modrmMem(dst.code, m);
    }

    /** {@code movzx r32, word [m]}. */
    public void loadZx16(X86Reg dst, Mem m) {
        rexRM(false, dst, m, false);
        buf.emit8(0x0f); buf.emit8(0xb7); /* movzx r32, r/m16 */
        modrmMem(dst.code, m);
    }

    /** {@code movsx r64, byte [m]}. */
    public void loadSx8(X86Reg dst, Mem m) {
        rexRM(true, dst, m, false);
        buf.emit8(0x0f); buf.emit8(0xbe); /* movsx r64, r/m8 */
        modrmMem(dst.code, m);
    }

    /** {@code movsx r64, word [m]}. */
    public void loadSx16(X86Reg dst, Mem m) {
        rexRM(true, dst, m, false);
        buf.emit8(0x0f); buf.emit8(0xbf); /* movsx r64, r/m16 */
        modrmMem(dst.code, m);
    }

    /** {@code movsxd r64, dword [m]}. */
    public void loadSx32(X86Reg dst, Mem m) {
        rexRM(true, dst, m, false);
        buf.emit8(0x63); /* movsxd r64, r/m32 */
        modrmMem(dst.code, m);
    }

    /** {@code mov [m], r} of 1, 2, 4 or 8 bytes. */
    public void store(int size, Mem m, X86Reg src) {
        if (size == 2) buf.emit8(0x66); /* operand-size prefix */
        rexRM(size == 8, src, m, size == 1 && src.byteNeedsRex());
        buf.emit8(size == 1 ? 0x88 : 0x89); /* mov r/m8, r8 | mov r/m, r */
        modrmMem(src.code, m);
    }

    /** {@code xorps xmmN, xmmN} (SSE, baseline on x86-64): zeroes xmm register {@code xmm}. */
    public void xorpsSelf(int xmm) {
        if (xmm >= 8) buf.emit8(REX | REX_R | REX_B);
        buf.emit8(0x0f); buf.emit8(0x57); /* xorps xmm, xmm/m128 */
        buf.emit8(0xc0 | ((xmm & 7) << 3) | (xmm & 7));
    }

    /** {@code movups [m], xmmN}: a 16-byte store with no alignment requirement. */
    public void movupsStore(Mem m, int xmm) {
        int rex = (xmm >= 8 ? REX_R : 0) | (m.base().extended() ? REX_B : 0);
        if (rex != 0) buf.emit8(REX | rex);
        buf.emit8(0x0f); buf.emit8(0x11); /* movups xmm/m128, xmm */
        modrmMem(xmm, m);
    }

    /** {@code mov size ptr [m], imm} (8-byte form: sign-extended imm32). */
    public void storeImm(int size, Mem m, int imm) {
        if (size == 2) buf.emit8(0x66);
        rexRM(size == 8, X86Reg.RAX, m, false);
        buf.emit8(size == 1 ? 0xc6 : 0xc7); /* mov r/m, imm */
        modrmMem(0, m);
        if (size == 1) buf.emit8(imm);
        else if (size == 2) buf.emit16(imm);
        else buf.emit32(imm);
    }

    /** {@code lea r64, [m]}. */
    public void lea(X86Reg dst, Mem m) {
        rexRM(true, dst, m, false);
        buf.emit8(0x8d); /* lea r64, m */
        modrmMem(dst.code, m);
    }

    /** {@code movzx r32, r16}. */
    public void movzx16(X86Reg dst, X86Reg src) {
        rexRR(false, dst, src, false);
        buf.emit8(0x0f); buf.emit8(0xb7); /* movzx r32, r/m16 */
        modrmRR(dst.code, src);
    }

    /** {@code movsx r, r8} (to 64 bits when w, else to 32 bits, zero-extended). */
    public void movsx8(boolean w, X86Reg dst, X86Reg src) {
        rexRR(w, dst, src, src.byteNeedsRex());
        buf.emit8(0x0f); buf.emit8(0xbe); /* movsx r, r/m8 */
        modrmRR(dst.code, src);
    }

    /** {@code movsx r, r16}. */
    public void movsx16(boolean w, X86Reg dst, X86Reg src) {
        rexRR(w, dst, src, false);
        buf.emit8(0x0f); buf.emit8(0xbf); /* movsx r, r/m16 */
        modrmRR(dst.code, src);
    }

    /** {@code movsxd r64, r32}. */
    public void movsxd(X86Reg dst, X86Reg src) {
        rexRR(true, dst, src, false);
        buf.emit8(0x63); /* movsxd r64, r/m32 */
        modrmRR(dst.code, src);
    }

    // ---- arithmetic --------------------------------------------------------------------------

    /** {@code op dst, src}. */
    public void aluRR(AluOp op, boolean w, X86Reg dst, X86Reg src) {
        rexRR(w, src, dst, false);
        buf.emit8(op.base + 1); /* op r/m, r */
        modrmRR(src.code, dst);
    }

    /** {@code op dst, imm} (imm sign-extended to the operand size). */
    public void aluRI(AluOp op, boolean w, X86Reg dst, int imm) {
        rexR(w, dst, false);
        if (isImm8(imm)) {
            buf.emit8(0x83); /* op r/m, imm8 */
            modrmRR(op.ext, dst);
            buf.emit8(imm);
        } else if (dst == X86Reg.RAX) {
            buf.emit8(op.base + 5); /* op rax, imm32 */
            buf.emit32(imm);
        } else {
            buf.emit8(0x81); /* op r/m, imm32 */
            modrmRR(op.ext, dst);
            buf.emit32(imm);
        }
    }

    /** {@code op reg, [m]}. */
    public void aluRM(AluOp op, boolean w, X86Reg dst, Mem m) {
        rexRM(w, dst, m, false);
        buf.emit8(op.base + 3); /* op r, r/m */
        modrmMem(dst.code, m);
    }

    /** {@code op [m], reg}, optionally with a {@code lock} prefix. */
    public void aluMR(AluOp op, boolean w, Mem m, X86Reg src, boolean lock) {
        if (lock) buf.emit8(0xf0); /* lock */
        rexRM(w, src, m, false);
        buf.emit8(op.base + 1); /* op r/m, r */
        modrmMem(src.code, m);
    }

    /** {@code op size ptr [m], imm} for 4- or 8-byte operands. */
    public void aluMI(AluOp op, boolean w, Mem m, int imm) {
        rexRM(w, X86Reg.RAX, m, false);
        if (isImm8(imm)) {
            buf.emit8(0x83); /* op r/m, imm8 */
            modrmMem(op.ext, m);
            buf.emit8(imm);
        } else {
            buf.emit8(0x81); /* op r/m, imm32 */
            modrmMem(op.ext, m);
            buf.emit32(imm);
        }
    }

    /** {@code test dst, src}. */
    public void testRR(boolean w, X86Reg dst, X86Reg src) {
        rexRR(w, src, dst, false);
        buf.emit8(0x85); /* test r/m, r */
        modrmRR(src.code, dst);
    }

    /** {@code test dst, imm32}. */
    public void testRI(boolean w, X86Reg dst, int imm) {
        rexR(w, dst, false);
        if (dst == X86Reg.RAX) {
            buf.emit8(0xa9); /* test rax, imm32 */
        } else {
            buf.emit8(0xf7); /* test r/m, imm32 */
            modrmRR(0, dst);
        }
        buf.emit32(imm);
    }

    /** {@code imul dst, src} (two-operand form: no rdx clobber). */
    public void imulRR(boolean w, X86Reg dst, X86Reg src) {
        rexRR(w, dst, src, false);
        buf.emit8(0x0f); buf.emit8(0xaf); /* imul r, r/m */
        modrmRR(dst.code, src);
    }

    /** {@code imul dst, src, imm}. */
    public void imulRRI(boolean w, X86Reg dst, X86Reg src, int imm) {
        rexRR(w, dst, src, false);
        if (isImm8(imm)) {
            buf.emit8(0x6b); /* imul r, r/m, imm8 */
            modrmRR(dst.code, src);
            buf.emit8(imm);
        } else {
            buf.emit8(0x69); /* imul r, r/m, imm32 */
            modrmRR(dst.code, src);
            buf.emit32(imm);
        }
    }

    /** {@code mul src}: rdx:rax = rax * src, unsigned 64 x 64 -> 128 bits. */
    public void mulWide(X86Reg src) {
        rexR(true, src, false);
        buf.emit8(0xf7); /* mul r/m (/4) */
        modrmRR(4, src);
    }

    /** {@code div src} (unsigned rdx:rax / src) or {@code idiv src}. */
    public void div(boolean w, boolean signed, X86Reg src) {
        rexR(w, src, false);
        buf.emit8(0xf7); /* div r/m (/6) | idiv r/m (/7) */
        modrmRR(signed ? 7 : 6, src);
    }

    /** {@code neg dst}. */
    public void neg(boolean w, X86Reg dst) {
        rexR(w, dst, false);
        buf.emit8(0xf7); /* neg r/m (/3) */
        modrmRR(3, dst);
    }

    /** {@code cqo} (w) or {@code cdq}: sign-extend rax into rdx. */
    public void signExtendAx(boolean w) {
        if (w) buf.emit8(REX | REX_W);
        buf.emit8(0x99); /* cqo | cdq */
    }

    /** {@code shl|shr|sar|rol|ror dst, cl}. */
    public void shiftCl(Shift s, boolean w, X86Reg dst) {
        rexR(w, dst, false);
        buf.emit8(0xd3); /* shift r/m, cl */
        modrmRR(s.ext, dst);
    }

    /** {@code shl|shr|sar|rol|ror dst, imm8}. */
    public void shiftImm(Shift s, boolean w, X86Reg dst, int count) {
        rexR(w, dst, false);
        if (count == 1) {
            buf.emit8(0xd1); /* shift r/m, 1 */
            modrmRR(s.ext, dst);
        } else {
            buf.emit8(0xc1); /* shift r/m, imm8 */
            modrmRR(s.ext, dst);
            buf.emit8(count);
        }
    }

    /** {@code rol r16, 8}: swaps the two low bytes. */
    public void rol16By8(X86Reg dst) {
        buf.emit8(0x66); /* operand-size prefix */
        rexR(false, dst, false);
        buf.emit8(0xc1); /* rol r/m16, imm8 */
        modrmRR(Shift.ROL.ext, dst);
        buf.emit8(8);
    }

    /** {@code bswap r64|r32}. */
    public void bswap(boolean w, X86Reg dst) {
        rexR(w, dst, false);
        buf.emit8(0x0f); buf.emit8(0xc8 + dst.low3()); /* bswap r */
    }

    // ---- atomics -----------------------------------------------------------------------------

    /** {@code lock xadd [m], src}. */
    public void lockXadd(boolean w, Mem m, X86Reg src) {
        buf.emit8(0xf0); /* lock */
        rexRM(w, src, m, false);
        buf.emit8(0x0f); buf.emit8(0xc1); /* xadd r/m, r */
        modrmMem(src.code, m);
    }

    /** {@code xchg [m], src} (implicitly locked). */
    public void xchg(boolean w, Mem m, X86Reg src) {
        rexRM(w, src, m, false);
        buf.emit8(0x87); /* xchg r/m, r */
        modrmMem(src.code, m);
    }

    /** {@code lock cmpxchg [m], src}: compares rax with [m]. */
    public void lockCmpxchg(boolean w, Mem m, X86Reg src) {
        buf.emit8(0xf0); /* lock */
        rexRM(w, src, m, false);
        buf.emit8(0x0f); buf.emit8(0xb1); /* cmpxchg r/m, r */
        modrmMem(src.code, m);
    }

}
