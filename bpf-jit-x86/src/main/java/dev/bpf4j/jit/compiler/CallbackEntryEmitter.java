package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.unwind.CfaRule;

/**
 * {@code long callback_entry(void *fn, void *env)}: how a Java helper runs a callback function
 * (HelperCall.callSubprogram; the runtime has already spent the budget unit, raised DEPTH and
 * written r1-r5 to the env's ARGS). It saves the caller's registers like the entry frame and makes
 * itself the error exit's target (EXIT_RBP/EXIT_RSP — the runtime restores the outer ones), so an
 * error in the callback returns here and the helper sees the status. The callback runs with rbp =
 * the frame that made the helper call, so its frame links to the live BPF frames (memory checks
 * walk that chain) and not to Java's.
 */
final class CallbackEntryEmitter {
    private CallbackEntryEmitter() {}

    private static final X86Reg[] ARG_REGS = {X86Reg.RDI, X86Reg.RSI, X86Reg.RDX, X86Reg.RCX, X86Reg.R8};

    static void emit(JitContext c) {
        X86Encoder e = c.e;
        int begin = c.pos();
        c.stubs.put(Stub.CALLBACK_ENTRY, begin);
        e.push(X86Reg.RBP);                                                 /* push rbp */
        int afterPush = c.pos();
        e.movRR(true, X86Reg.RBP, X86Reg.RSP);                                 /* mov rbp, rsp */
        int fp = c.pos();
        for (X86Reg r : RegMap.ENTRY_SAVED) e.push(r);                      /* push callee-saved (the error exit pops them) */
        e.movRR(true, RegMap.ENV, X86Reg.RSI);                              /* mov r12, rsi (env) */
        e.store(8, JitContext.env(EnvLayout.EXIT_RBP), X86Reg.RBP);         /* mov [r12 + EXIT_RBP], rbp */
        e.store(8, JitContext.env(EnvLayout.EXIT_RSP), X86Reg.RSP);         /* mov [r12 + EXIT_RSP], rsp */
        e.aluRI(AluOp.SUB, true, X86Reg.RSP, 8);                            /* sub rsp, 8 (keep the call aligned) */
        e.movRR(true, RegMap.AUX2, X86Reg.RDI);                             /* mov r11, rdi (fn) */
        e.movRR(true, X86Reg.RBX, X86Reg.RBP);                                 /* mov rbx, rbp (callee-saved in every function) */
        for (int i = 0; i < ARG_REGS.length; i++) {
            e.load(true, ARG_REGS[i], JitContext.env(EnvLayout.ARGS + 8 * i)); /* mov r(i+1), [r12 + ARGS + 8i] */
        }
        e.load(true, X86Reg.RBP, JitContext.env(EnvLayout.CUR_RBP));        /* mov rbp, [r12 + CUR_RBP] (the helper caller's frame) */
        e.load(true, RegMap.BUDGET, JitContext.env(EnvLayout.BUDGET));   /* mov r9, [r12 + BUDGET] */
        e.callR(RegMap.AUX2);                                            /* call r11 */
        e.store(8, JitContext.env(EnvLayout.BUDGET), RegMap.BUDGET);     /* mov [r12 + BUDGET], r9 (what the callback left) */
        e.movRR(true, X86Reg.RBP, X86Reg.RBX);                                 /* mov rbp, rbx */
        e.lea(X86Reg.RSP, Mem.of(X86Reg.RBP, -8 * RegMap.ENTRY_SAVED.length)); /* lea rsp, [rbp - 40] */
        for (int i = RegMap.ENTRY_SAVED.length - 1; i >= 0; i--) e.pop(RegMap.ENTRY_SAVED[i]); /* pop callee-saved */
        int leave = c.pos();
        e.leave();                                                       /* leave */
        e.ret();                                                         /* ret */
        c.stubRows.add(new int[]{begin, afterPush, CfaRule.RETURN_AT_SP.ordinal()});
        c.stubRows.add(new int[]{afterPush, fp, CfaRule.RETURN_AT_SP_PLUS_8.ordinal()});
        c.stubRows.add(new int[]{fp, leave + 1, CfaRule.FRAME_POINTER.ordinal()});
        c.stubRows.add(new int[]{leave + 1, leave + 2, CfaRule.RETURN_AT_SP.ordinal()});
    }
}
