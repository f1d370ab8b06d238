package dev.bpf4j.jit.compiler;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.jit.analysis.LoadCombining;
import dev.bpf4j.analysis.RegionProof;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.runtime.Limits;

/**
 * Loads, stores and lddw. An r10 + constant access inside the frame needs no check (the validator
 * proves it); every other access computes its address into r10 and is checked first: inline
 * against the cached region and the current frame, out of line ({@code MEM_CHECK}) against every
 * region and every live frame.
 */
final class MemoryEmitter {
    private MemoryEmitter() {}

    static void emit(JitContext c, int pc, Insn i) {
        X86Encoder e = c.e;
        int cls = i.cls();
        int mode = Opcodes.mode(i.opcode());
        int size = Opcodes.sizeBytes(i.opcode());
        if (cls == Opcodes.LD) {
            if (!i.isLddw()) {
                LegacyLoadEmitter.emit(c, pc, i);
                return;
            }
            if (pc + 1 >= c.insns.length) throw c.error(pc, "lddw without its second slot");
            if (Subprograms.isFunctionAddress(i)) {
                e.leaRip(RegMap.x86(i.dst()), c.functionEntry(pc + 1 + i.imm())); /* lea dst, [rip + function] (a callback handle) */
                return;
            }
            e.loadImm64(RegMap.x86(i.dst()), i.imm64(c.insns[pc + 1])); /* mov dst, imm64 */
            return;
        }
        if (cls == Opcodes.STX && mode == Opcodes.ATOMIC) {
            AtomicEmitter.emit(c, pc, i, size);
            return;
        }
        if (cls == Opcodes.LDX) {
            if (mode != Opcodes.MEM && !(mode == Opcodes.MEMSX && size < 8)) {
                throw c.error(pc, String.format("unsupported load mode 0x%02x", i.opcode()));
            }
            byte field = c.inCopy && c.guarded.ctxFields() != null ? c.guarded.ctxFields()[pc] : 0;
            if (field != 0) { // ctx->data or ctx->data_end before anything could change it: what the guard checked
                int slot = field == RegionProof.CtxProof.DATA ? EnvLayout.CTX_DATA : EnvLayout.CTX_DATA_END;
                e.load(true, RegMap.x86(i.dst()), JitContext.env(slot)); /* mov dst, [r12 + CTX_DATA|CTX_DATA_END] */
                return;
            }
            Mem m = address(c, pc, i.src(), i.off(), size, false);
            load(e, mode == Opcodes.MEMSX, size, RegMap.x86(i.dst()), m);
            return;
        }
        if (mode != Opcodes.MEM) throw c.error(pc, String.format("unsupported store mode 0x%02x", i.opcode()));
        Mem m = address(c, pc, i.dst(), i.off(), size, true);
        if (cls == Opcodes.ST) e.storeImm(size, m, i.imm());          /* mov size [m], imm */
        else e.store(size, m, RegMap.x86(i.src()));                   /* mov size [m], src */
    }

    /** {@code dst} = the {@code size}-byte value at {@code m}, zero- or sign-extended. */
    static void load(X86Encoder e, boolean signExtend, int size, X86Reg dst, Mem m) {
        switch (size) {
            case 1: if (signExtend) e.loadSx8(dst, m); else e.loadZx8(dst, m); break;   /* movsx|movzx dst, byte [m] */
            case 2: if (signExtend) e.loadSx16(dst, m); else e.loadZx16(dst, m); break; /* movsx|movzx dst, word [m] */
            case 4: if (signExtend) e.loadSx32(dst, m); else e.load(false, dst, m); break; /* movsxd dst | mov dst32, dword [m] */
            default: e.load(true, dst, m);                                              /* mov dst, qword [m] */
        }
    }

    /**
     * A wide load in place of byte loads ({@link LoadCombining}): {@code mov} of 2, 4 or 8 bytes,
     * then a byte swap when the bytes were or-ed in big-endian order. Every byte was proven
     * accessible, so there is no check.
     */
    static void combinedLoad(X86Encoder e, LoadCombining.CombinedLoad l) {
        X86Reg dst = RegMap.x86(l.dst());
        load(e, false, l.width(), dst, Mem.of(RegMap.x86(l.base()), l.off())); /* movzx|mov dst, [base + off] */
        if (!l.bigEndian()) return;
        switch (l.width()) {
            case 2: e.rol16By8(dst); break;                       /* rol dst16, 8 (bits 16-63 stay zero) */
            case 4: e.bswap(false, dst); break;                   /* bswap dst32 */
            default: e.bswap(true, dst);                          /* bswap dst */
        }
    }

    /** True when the access at pc is emitted without a check (the predicate {@link #address} uses). */
    static boolean isUnchecked(boolean[] unchecked, int pc, int baseReg, int off, int size) {
        return provenStackAccess(baseReg, off, size) || (unchecked != null && unchecked[pc]);
    }

    /** True for an r10-relative access that lies inside the frame: no run-time check. */
    static boolean provenStackAccess(int baseReg, int off, int size) {
        return baseReg == 10 && off >= -Limits.STACK_SIZE && off + size <= 0;
    }

    /**
     * The operand for the access, checked unless it is an r10 + constant access in the frame or
     * StackProof proved that its base always points into the frame far enough from both ends.
     */
    static Mem address(JitContext c, int pc, int baseReg, int off, int size, boolean write) {
        if (isUnchecked(c.unchecked, pc, baseReg, off, size)) return Mem.of(RegMap.x86(baseReg), off); /* [base + off], proven */
        return checkedAddress(c, pc, baseReg, off, size, write);
    }

    /**
     * Computes {@code base + off} into r10 and checks it: returns {@code [r10]}. Against the current
     * frame and the live ones only when the verifier typed the base as a stack pointer (or did not
     * run): any other pointer may reach the run's regions, never a frame.
     */
    static Mem checkedAddress(JitContext c, int pc, int baseReg, int off, int size, boolean write) {
        boolean frames = c.touchesFrames(pc);
        X86Encoder e = c.e;
        X86Reg base = RegMap.x86(baseReg);
        X86Reg addr = RegMap.AUX;
        if (off == 0) e.movRR(true, addr, base);                      /* mov r10, base */
        else e.lea(addr, Mem.of(base, off));                          /* lea r10, [base + off] */
        int start = write ? EnvLayout.FAST_W_START : EnvLayout.FAST_R_START;
        int last = write ? EnvLayout.FAST_W_LAST : EnvLayout.FAST_R_LAST;
        e.aluRM(AluOp.CMP, true, addr, JitContext.env(start));       /* cmp r10, [r12 + FAST_START] */
        int notRegion = e.jccForward8(Cond.B);                        /* jb .frame */
        e.aluRM(AluOp.CMP, true, addr, JitContext.env(last));        /* cmp r10, [r12 + FAST_LAST] */
        int ok1 = e.jccForward8(Cond.BE);                             /* jbe .ok */
        if (!frames) {
            e.bind(notRegion);                                        /* .slow: regions only */
            e.movImm32(RegMap.AUX2, AccessDescriptor.encode(pc, size, write, false)); /* mov r11d, descriptor | NO_FRAMES */
            e.callRel32(c.stub(Stub.MEM_CHECK));                      /* call mem_check */
            e.bind(ok1);                                              /* .ok: */
            return Mem.of(addr, 0);
        }
        e.bind(notRegion);                                            /* .frame: the current frame is always live */
        e.lea(RegMap.AUX2, Mem.of(X86Reg.RBP, -Limits.STACK_SIZE));      /* lea r11, [rbp - 512] */
        e.aluRR(AluOp.CMP, true, addr, RegMap.AUX2);                  /* cmp r10, r11 */
        int slow = e.jccForward8(Cond.B);                             /* jb .slow */
        e.lea(RegMap.AUX2, Mem.of(X86Reg.RBP, -size));                   /* lea r11, [rbp - size] */
        e.aluRR(AluOp.CMP, true, addr, RegMap.AUX2);                  /* cmp r10, r11 */
        int ok2 = e.jccForward8(Cond.BE);                             /* jbe .ok */
        e.bind(slow);                                                 /* .slow: */
        e.movImm32(RegMap.AUX2, AccessDescriptor.encode(pc, size, write)); /* mov r11d, descriptor */
        e.callRel32(c.stub(Stub.MEM_CHECK));                          /* call mem_check */
        e.bind(ok1);                                                  /* .ok: */
        e.bind(ok2);
        return Mem.of(addr, 0);
    }
}
