package dev.bpf4j.jit.x86;

/**
 * The common layer of the x86-64 encoder: the code buffer, REX/ModRM/SIB encoding, and the
 * control-flow forms (push/pop, calls, jumps with fixed or patched displacements). Each method
 * writes exactly one instruction, its Intel-syntax assembly written beside it.
 */
public abstract class X86EncoderBase {
    static final int REX = 0x40, REX_W = 0x08, REX_R = 0x04, REX_B = 0x01;

    final CodeBuffer buf;

    X86EncoderBase(CodeBuffer buf) { this.buf = buf; }

    public CodeBuffer buffer() { return buf; }

    public int position() { return buf.size(); }

    // ---- prefixes, ModRM -------------------------------------------------------------------

    /** REX for a register-register form: reg in ModRM.reg, rm in ModRM.rm. */
    final void rexRR(boolean w, X86Reg reg, X86Reg rm, boolean forceRex) {
        int rex = (w ? REX_W : 0) | (reg.extended() ? REX_R : 0) | (rm.extended() ? REX_B : 0);
        if (rex != 0 || forceRex) buf.emit8(REX | rex);
    }

    /** REX for a register-memory form (only a base register, never an index). */
    final void rexRM(boolean w, X86Reg reg, Mem m, boolean forceRex) {
        int rex = (w ? REX_W : 0) | (reg.extended() ? REX_R : 0) | (m.base().extended() ? REX_B : 0);
        if (rex != 0 || forceRex) buf.emit8(REX | rex);
    }

    /** REX for a form with only an r/m register (reg field is an opcode extension). */
    final void rexR(boolean w, X86Reg rm, boolean forceRex) {
        int rex = (w ? REX_W : 0) | (rm.extended() ? REX_B : 0);
        if (rex != 0 || forceRex) buf.emit8(REX | rex);
    }

    final void modrmRR(int reg, X86Reg rm) { buf.emit8(0xc0 | ((reg & 7) << 3) | rm.low3()); }

    /** ModRM (+SIB, +disp) for {@code [base + disp]}: rsp/r12 need a SIB, rbp/r13 a displacement. */
    final void modrmMem(int reg, Mem m) {
        X86Reg base = m.base();
        int disp = m.disp();
        int mod;
        if (disp == 0 && base.low3() != 5) mod = 0;
        else if (disp >= -128 && disp <= 127) mod = 1;
        else mod = 2;
        buf.emit8((mod << 6) | ((reg & 7) << 3) | base.low3());
        if (base.low3() == 4) buf.emit8(0x24); /* SIB: base only, no index */
        if (mod == 1) buf.emit8(disp);
        else if (mod == 2) buf.emit32(disp);
    }

    static boolean isImm8(long v) { return v >= -128 && v <= 127; }

    // ---- stack, control flow -------------------------------------------------------------

    public void push(X86Reg r) {
        rexR(false, r, false);
        buf.emit8(0x50 + r.low3()); /* push r64 */
    }

    public void pop(X86Reg r) {
        rexR(false, r, false);
        buf.emit8(0x58 + r.low3()); /* pop r64 */
    }

    /** {@code pause}: the spin-wait hint of a CAS loop. */
    public void pause() { buf.emit8(0xf3); buf.emit8(0x90); /* pause */ }

    public void leave() { buf.emit8(0xc9); /* leave */ }

    public void ret() { buf.emit8(0xc3); /* ret */ }

    /** The recommended multi-byte NOPs (Intel SDM vol. 2B, NOP), by length 1..9. */
    private static final int[][] NOPS = {
            {},
            {0x90},                                               /* nop */
            {0x66, 0x90},                                         /* xchg ax, ax */
            {0x0f, 0x1f, 0x00},                                   /* nop dword [rax] */
            {0x0f, 0x1f, 0x40, 0x00},                             /* nop dword [rax + 0] */
            {0x0f, 0x1f, 0x44, 0x00, 0x00},                       /* nop dword [rax + rax + 0] */
            {0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00},                 /* nop word [rax + rax + 0] */
            {0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00},           /* nop dword [rax + 0] (disp32) */
            {0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00},     /* nop dword [rax + rax + 0] (disp32) */
            {0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00}, /* nop word [rax + rax + 0] (disp32) */
    };

    /** {@code n} bytes of padding as the fewest NOP instructions (at most 9 bytes each). */
    public void nop(int n) {
        if (n < 0) throw new IllegalArgumentException("negative nop length " + n);
        while (n > 0) {
            int[] nop = NOPS[Math.min(n, NOPS.length - 1)];
            for (int b : nop) buf.emit8(b);
            n -= nop.length;
        }
    }

    /** Pads with NOPs up to the next multiple of {@code boundary} (a power of two) bytes. */
    public void alignTo(int boundary) {
        nop(-position() & (boundary - 1));
    }

    /** {@code call r64}. */
    public void callR(X86Reg target) {
        rexR(false, target, false);
        buf.emit8(0xff); /* call r/m64 (/2) */
        modrmRR(2, target);
    }

    /** {@code jmp r64}. */
    public void jmpR(X86Reg target) {
        rexR(false, target, false);
        buf.emit8(0xff); /* jmp r/m64 (/4) */
        modrmRR(4, target);
    }

    /** {@code call rel32} to the absolute buffer offset {@code target}. */
    public void callRel32(int target) {
        buf.emit8(0xe8); /* call rel32 */
        buf.emit32(target - (buf.size() + 4));
    }

    /** {@code jmp rel32} to the buffer offset {@code target}. */
    public void jmpRel32(int target) {
        buf.emit8(0xe9); /* jmp rel32 */
        buf.emit32(target - (buf.size() + 4));
    }

    /** {@code jmp rel8} to the buffer offset {@code target}. */
    public void jmpRel8(int target) {
        buf.emit8(0xeb); /* jmp rel8 */
        int rel = target - (buf.size() + 1);
        checkRel8(rel);
        buf.emit8(rel);
    }

    /** {@code jmp} to an already known offset, short when it reaches. */
    public void jmpTo(int target) {
        if (isImm8(target - (buf.size() + 2))) jmpRel8(target);
        else jmpRel32(target);
    }

    /** {@code jcc rel32}. */
    public void jccRel32(Cond c, int target) {
        buf.emit8(0x0f); buf.emit8(0x80 + c.code); /* jcc rel32 */
        buf.emit32(target - (buf.size() + 4));
    }

    /** {@code jcc rel8}. */
    public void jccRel8(Cond c, int target) {
        buf.emit8(0x70 + c.code); /* jcc rel8 */
        int rel = target - (buf.size() + 1);
        checkRel8(rel);
        buf.emit8(rel);
    }

    /** Emits {@code jcc rel8} with a placeholder; {@link #bind} patches it. */
    public int jccForward8(Cond c) {
        buf.emit8(0x70 + c.code); /* jcc rel8 (patched) */
        buf.emit8(0);
        return buf.size() - 1;
    }

    /** Emits {@code jmp rel8} with a placeholder; {@link #bind} patches it. */
    public int jmpForward8() {
        buf.emit8(0xeb); /* jmp rel8 (patched) */
        buf.emit8(0);
        return buf.size() - 1;
    }

    /** Emits {@code jcc rel32} with a placeholder; {@link #bind32} patches it. */
    public int jccForward32(Cond c) {
        buf.emit8(0x0f); buf.emit8(0x80 + c.code); /* jcc rel32 (patched) */
        buf.emit32(0);
        return buf.size() - 4;
    }

    /** Emits {@code jmp rel32} with a placeholder; {@link #bind32} patches it. */
    public int jmpForward32() {
        buf.emit8(0xe9); /* jmp rel32 (patched) */
        buf.emit32(0);
        return buf.size() - 4;
    }

    /** Points the forward rel32 whose displacement starts at {@code patchPos} at the current position. */
    public void bind32(int patchPos) {
        buf.patch32(patchPos, buf.size() - (patchPos + 4));
    }

    /** Points the forward rel8 whose displacement byte is at {@code patchPos} at the current position. */
    public void bind(int patchPos) {
        int rel = buf.size() - (patchPos + 1);
        checkRel8(rel);
        buf.patch8(patchPos, rel);
    }

    static void checkRel8(int rel) {
        if (!isImm8(rel)) throw new IllegalStateException("rel8 displacement out of range: " + rel);
    }

    public static boolean fitsRel8(int rel) { return isImm8(rel); }
}
