package dev.bpf4j.jit.compiler;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.jit.x86.X86Encoder;

/** BPF_ATOMIC: lock-prefixed read-modify-writes; fetching or/and/xor become a cmpxchg loop. */
final class AtomicEmitter {
    private AtomicEmitter() {}

    static void emit(JitContext c, int pc, Insn i, int size) {
        if (size != 4 && size != 8) throw c.error(pc, "atomic operations are 32 or 64 bits wide");
        boolean w = size == 8;
        int op = i.imm();
        AluOp alu = aluOp(op & ~Opcodes.FETCH);
        if (op != Opcodes.XCHG && op != Opcodes.CMPXCHG && alu == null) {
            throw c.error(pc, String.format("unknown atomic operation 0x%x", op));
        }
        X86Encoder e = c.e;
        Mem m = alignedAddress(c, pc, i, size);
        X86Reg src = RegMap.x86(i.src());
        if (op == Opcodes.XCHG) {
            e.xchg(w, m, src);                                        /* xchg [m], src */
        } else if (op == Opcodes.CMPXCHG) {
            e.lockCmpxchg(w, m, src);                                 /* lock cmpxchg [m], src */
            if (!w) e.movRR(false, X86Reg.RAX, X86Reg.RAX);                 /* mov eax, eax (success leaves rax unwritten) */
        } else if ((op & Opcodes.FETCH) == 0) {
            e.aluMR(alu, w, m, src, true);                            /* lock op [m], src */
        } else if (alu == AluOp.ADD) {
            e.lockXadd(w, m, src);                                    /* lock xadd [m], src */
        } else {
            fetchLoop(e, alu, w, m, src);
        }
    }

    /**
     * The checked operand of an atomic, which must also be aligned to its size (a misaligned
     * {@code lock} is a split lock). rbp is 16-byte aligned, so an in-frame r10 access is aligned
     * exactly when its offset is; any other address is tested at run time.
     */
    private static Mem alignedAddress(JitContext c, int pc, Insn i, int size) {
        if (MemoryEmitter.provenStackAccess(i.dst(), i.off(), size) && (i.off() & (size - 1)) == 0) {
            return MemoryEmitter.address(c, pc, i.dst(), i.off(), size, true);
        }
        X86Encoder e = c.e;
        Mem m = MemoryEmitter.checkedAddress(c, pc, i.dst(), i.off(), size, true);
        e.testRI(false, RegMap.AUX, size - 1);                       /* test r10d, size - 1 */
        int aligned = e.jccForward8(Cond.E);                          /* je .aligned */
        e.movImm32(RegMap.AUX2, AccessDescriptor.encode(pc, size, true)); /* mov r11d, descriptor */
        e.jmpRel32(c.stub(Stub.RAISE_MISALIGNED));                    /* jmp raise_misaligned */
        e.bind(aligned);                                              /* .aligned: */
        return m;
    }

    /** {@code src = atomic_fetch_op(m, src)} with a cmpxchg loop; rax (R0) is saved in the env. */
    private static void fetchLoop(X86Encoder e, AluOp alu, boolean w, Mem m, X86Reg src) {
        Mem saved = JitContext.env(EnvLayout.SCRATCH);
        e.store(8, saved, X86Reg.RAX);                                   /* mov [r12 + SCRATCH], rax */
        e.load(w, X86Reg.RAX, m);                                        /* mov rax, [m] */
        int loop = e.position();                                      /* .retry: */
        e.movRR(true, RegMap.AUX2, X86Reg.RAX);                          /* mov r11, rax */
        if (src == X86Reg.RAX) e.aluRM(alu, w, RegMap.AUX2, saved);      /* op r11, [r12 + SCRATCH] */
        else e.aluRR(alu, w, RegMap.AUX2, src);                       /* op r11, src */
        e.lockCmpxchg(w, m, RegMap.AUX2);                             /* lock cmpxchg [m], r11 */
        e.jccRel8(Cond.NE, loop);                                     /* jne .retry */
        if (src != X86Reg.RAX) {
            e.movRR(w, src, X86Reg.RAX);                                 /* mov src, rax (old value) */
            e.load(true, X86Reg.RAX, saved);                             /* mov rax, [r12 + SCRATCH] */
        } else if (!w) {
            e.movRR(false, X86Reg.RAX, X86Reg.RAX);                         /* mov eax, eax */
        }
    }

    private static AluOp aluOp(int op) {
        switch (op) {
            case Opcodes.ADD: return AluOp.ADD;
            case Opcodes.OR: return AluOp.OR;
            case Opcodes.AND: return AluOp.AND;
            case Opcodes.XOR: return AluOp.XOR;
            default: return null;
        }
    }
}
