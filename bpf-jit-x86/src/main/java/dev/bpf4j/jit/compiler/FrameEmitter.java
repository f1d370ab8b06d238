package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.HelperBinding;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.engine.StackUse;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.unwind.CfaRule;

import java.util.List;

/** Prologues and epilogues: a real rbp frame in every function, so frame-pointer unwinders walk through. */
final class FrameEmitter {
    private FrameEmitter() {}

    /** Initial r1..r5 come from jffi (r1 = ctx in rdi) and the env block (r2..r5). */
    private static final X86Reg[] ENTRY_ARG_REGS = {X86Reg.RDI, X86Reg.RSI, X86Reg.RDX, X86Reg.RCX, X86Reg.R8};

    static void prologue(JitContext c, FunctionSpan f, int entryArgs) {
        X86Encoder e = c.e;
        FunctionFrame frame = c.frames[f.index()];
        e.push(X86Reg.RBP);                                        /* push rbp */
        e.movRR(true, X86Reg.RBP, X86Reg.RSP);                        /* mov rbp, rsp */
        c.fpStart[f.index()] = c.pos();
        e.aluRI(AluOp.SUB, true, X86Reg.RSP, frame.frameBytes());  /* sub rsp, 512 (+ alignment pad) */
        zeroFrame(e, f.isMain() ? c.mainZeroed
                : StackUse.bytesToZero(c.insns, f.startPc(), f.endPc(), id -> HelperBinding.forwardArguments(c.helpers, id)));
        for (X86Reg r : frame.saved()) e.push(r);                  /* push callee-saved */
        if (f.isMain() && !c.entryTrampoline) {
            e.movRR(true, RegMap.ENV, X86Reg.RSI);                 /* mov r12, rsi (env) */
            storeIfChanged(e, EnvLayout.ENTRY_RBP, X86Reg.RBP);    /* [r12 + ENTRY_RBP] = rbp */
            storeIfChanged(e, EnvLayout.EXIT_RBP, X86Reg.RBP);     /* [r12 + EXIT_RBP] = rbp */
            storeIfChanged(e, EnvLayout.EXIT_RSP, X86Reg.RSP);     /* [r12 + EXIT_RSP] = rsp */
            loadEntryArgs(e, entryArgs);
            e.load(true, RegMap.BUDGET, JitContext.env(EnvLayout.BUDGET)); /* mov r9, [r12 + BUDGET] */
            if (c.guarded != null) EntryGuard.emit(c);          /* the run's r1/r2 fit a region: the guarded copy */
        }
    }

    /**
     * Sets an env word to a register unless it already holds it: runs entered from the same Java
     * frame depth find their frame words in place, and a compare costs less than a store that the
     * return into the JVM must drain (docs/jit-performance.md, "Entering a run from Java").
     */
    private static void storeIfChanged(X86Encoder e, int field, X86Reg r) {
        e.aluMR(AluOp.CMP, true, JitContext.env(field), r, false); /* cmp [r12 + field], r */
        int same = e.jccForward8(Cond.E);                       /* je .same */
        e.store(8, JitContext.env(field), r);                   /* mov [r12 + field], r */
        e.bind(same);                                           /* .same: */
    }

    /**
     * The one SSE register JIT code uses: xmm15 carries no argument (SysV) and is not preserved
     * across calls, so a probe trampoline need not save it (docs/native-probes.md).
     */
    static final int ZERO_XMM = 15;

    /**
     * Zeroes {@code [rbp - bytes, rbp)}: a frame reads as zero until written, in both engines. With
     * 16-byte stores, unrolled: a whole 512-byte frame (every function whose r10 escapes) took ≈11 ns
     * with a loop of 8-byte stores, more than the rest of an empty run (docs/jit-performance.md).
     */
    static void zeroFrame(X86Encoder e, int bytes) {
        if (bytes == 0) return;
        if (bytes <= 16) {
            e.aluRR(AluOp.XOR, false, X86Reg.R11, X86Reg.R11);        /* xor r11d, r11d */
            for (int off = 8; off <= bytes; off += 8) e.store(8, Mem.of(X86Reg.RBP, -off), X86Reg.R11); /* mov [rbp - off], r11 */
            return;
        }
        e.xorpsSelf(ZERO_XMM);                                  /* xorps xmm15, xmm15 */
        for (int off = bytes; off >= 16; off -= 16) e.movupsStore(Mem.of(X86Reg.RBP, -off), ZERO_XMM); /* movups [rbp - off], xmm15 */
        if (bytes % 16 != 0) e.movupsStore(Mem.of(X86Reg.RBP, -16), ZERO_XMM); /* movups [rbp - 16], xmm15 (overlaps the one above) */
    }

    private static void loadEntryArgs(X86Encoder e, int entryArgs) {
        for (int i = 1; i < entryArgs; i++) {
            e.load(true, ENTRY_ARG_REGS[i], JitContext.env(EnvLayout.ARGS + 8 * i)); /* mov r(i+1), [r12 + ARGS + 8i] */
        }
    }

    /**
     * When the main program is also a call target it is compiled as an ordinary function, and this
     * trampoline (at offset 0, the entry point) does the entry work instead: save every callee-saved
     * register, set up r12 and the frame markers, load the arguments, call main, return its r0.
     */
    static void entryTrampoline(JitContext c, int entryArgs) {
        X86Encoder e = c.e;
        e.push(X86Reg.RBP);                                        /* push rbp */
        e.movRR(true, X86Reg.RBP, X86Reg.RSP);                        /* mov rbp, rsp */
        e.aluRI(AluOp.SUB, true, X86Reg.RSP, 8);                   /* sub rsp, 8 (keep calls aligned) */
        for (X86Reg r : RegMap.ENTRY_SAVED) e.push(r);             /* push callee-saved */
        e.movRR(true, RegMap.ENV, X86Reg.RSI);                     /* mov r12, rsi (env) */
        e.store(8, JitContext.env(EnvLayout.EXIT_RBP), X86Reg.RBP); /* mov [r12 + EXIT_RBP], rbp */
        e.store(8, JitContext.env(EnvLayout.EXIT_RSP), X86Reg.RSP); /* mov [r12 + EXIT_RSP], rsp */
        e.lea(X86Reg.RAX, Mem.of(X86Reg.RSP, -16));                   /* lea rax, [rsp - 16] (main's rbp-to-be) */
        e.store(8, JitContext.env(EnvLayout.ENTRY_RBP), X86Reg.RAX); /* mov [r12 + ENTRY_RBP], rax */
        loadEntryArgs(e, entryArgs);
        e.load(true, RegMap.BUDGET, JitContext.env(EnvLayout.BUDGET)); /* mov r9, [r12 + BUDGET] */
        e.callRel32(c.functionEntry(0));                        /* call main */
        for (int i = RegMap.ENTRY_SAVED.length - 1; i >= 0; i--) e.pop(RegMap.ENTRY_SAVED[i]); /* pop callee-saved */
        c.trampolineLeave = c.pos();
        e.leave();                                              /* leave */
        e.ret();                                                /* ret */
    }

    static void epilogue(JitContext c, FunctionSpan f) {
        X86Encoder e = c.e;
        List<X86Reg> saved = c.frames[f.index()].saved();
        for (int i = saved.size() - 1; i >= 0; i--) e.pop(saved.get(i)); /* pop callee-saved */
        c.leaveAt[f.index()] = c.pos();
        e.leave();                                              /* leave */
        e.ret();                                                /* ret */
    }

    /**
     * The one error exit: back to the native frame that saved the caller's registers (EXIT_RBP/EXIT_RSP:
     * the entry frame, the trampoline or a callback entry), restore them, return to Java (status is in
     * env). A pending tail call (only ever from the main program's body) also comes through here: it
     * jumps to the target's tail-call entry instead, reusing the frame (see {@link #tailCallEntry}).
     */
    static void errorExit(JitContext c) {
        X86Encoder e = c.e;
        int begin = c.pos();
        e.aluMI(AluOp.CMP, true, JitContext.env(EnvLayout.STATUS), (int) EnvLayout.STATUS_TAIL_CALL); /* cmp qword [r12 + STATUS], 4 */
        int exit = e.jccForward8(Cond.NE);                              /* jne .exit */
        e.storeImm(8, JitContext.env(EnvLayout.STATUS), 0);             /* mov qword [r12 + STATUS], 0 */
        for (int i = 0; i < ENTRY_ARG_REGS.length; i++) {
            e.load(true, ENTRY_ARG_REGS[i], JitContext.env(EnvLayout.ARGS + 8 * i)); /* mov r(i+1), [r12 + ARGS + 8i] (the call's r1-r5) */
        }
        e.load(true, RegMap.AUX2, JitContext.env(EnvLayout.TAIL_TARGET)); /* mov r11, [r12 + TAIL_TARGET] */
        e.jmpR(RegMap.AUX2);                                            /* jmp r11 */
        e.bind(exit);                                                   /* .exit: */
        e.load(true, X86Reg.RBP, JitContext.env(EnvLayout.EXIT_RBP));      /* mov rbp, [r12 + EXIT_RBP] */
        e.load(true, X86Reg.RSP, JitContext.env(EnvLayout.EXIT_RSP));      /* mov rsp, [r12 + EXIT_RSP] */
        e.aluRR(AluOp.XOR, false, X86Reg.RAX, X86Reg.RAX);                    /* xor eax, eax */
        List<X86Reg> saved = List.of(RegMap.ENTRY_SAVED);
        for (int i = saved.size() - 1; i >= 0; i--) e.pop(saved.get(i)); /* pop callee-saved */
        int leave = c.pos();
        e.leave();                                                      /* leave */
        e.ret();                                                        /* ret */
        c.stubRows.add(new int[]{begin, leave + 1, CfaRule.FRAME_POINTER.ordinal()});
        c.stubRows.add(new int[]{leave + 1, leave + 2, CfaRule.RETURN_AT_SP.ordinal()});
    }
}
