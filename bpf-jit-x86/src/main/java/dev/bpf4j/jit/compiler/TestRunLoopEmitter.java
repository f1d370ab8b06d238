package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.X86Reg;

/**
 * The body of a JNI {@code static native long repeat(long fn, long ctx, long env, long times)}: the
 * loop of the kernel's {@code bpf_test_run}, calling a program's entry {@code long fn(ctx, env)}
 * {@code times} times (at least once) with one JVM native transition for all of them, so that a
 * repeated test run reports the program's time rather than the transition's. Before each run the
 * budget word is restored (a run may spend it); the loop stops after a run that ends with a non-zero
 * status, which the caller then reads as after a single run. Returns the last run's r0.
 *
 * <p>A proper rbp frame ({@link NativeFormEmitter.Function}), registered with the code map, so a
 * sample taken while a program runs inside it unwinds through it to the JVM.
 */
public final class TestRunLoopEmitter {
    private TestRunLoopEmitter() {}

    /** Callee-saved registers the loop keeps its state in: fn, ctx, env, times left, budget. */
    private static final X86Reg FN = X86Reg.RBX, CTX = X86Reg.R12, ENV = X86Reg.R13, LEFT = X86Reg.R14, BUDGET = X86Reg.R15;

    public static NativeFormEmitter.Function code() {
        return NativeFormEmitter.Function.withFrame(e -> {
            for (X86Reg r : new X86Reg[]{FN, CTX, ENV, LEFT, BUDGET}) e.push(r);
            e.aluRI(AluOp.SUB, true, X86Reg.RSP, 8);                             /* sub rsp, 8: 16-byte aligned calls */
            // JNI: rdi = JNIEnv *, rsi = jclass, rdx = fn, rcx = ctx, r8 = env, r9 = times
            e.movRR(true, FN, X86Reg.RDX);                                        /* mov rbx, rdx */
            e.movRR(true, CTX, X86Reg.RCX);                                       /* mov r12, rcx */
            e.movRR(true, ENV, X86Reg.R8);                                        /* mov r13, r8 */
            e.movRR(true, LEFT, X86Reg.R9);                                       /* mov r14, r9 */
            e.load(true, BUDGET, Mem.of(ENV, EnvLayout.BUDGET));               /* mov r15, [r13 + BUDGET] */
            int loop = e.position();
            e.store(8, Mem.of(ENV, EnvLayout.BUDGET), BUDGET);                 /* mov [r13 + BUDGET], r15 */
            e.movRR(true, X86Reg.RDI, CTX);                                       /* mov rdi, r12 */
            e.movRR(true, X86Reg.RSI, ENV);                                       /* mov rsi, r13 */
            e.callR(FN);                                                       /* call rbx */
            e.aluMI(AluOp.CMP, true, Mem.of(ENV, EnvLayout.STATUS), 0);        /* cmp qword [r13 + STATUS], 0 */
            int stopped = e.jccForward8(Cond.NE);                              /* jne done */
            e.aluRI(AluOp.SUB, true, LEFT, 1);                                 /* sub r14, 1 */
            e.jccRel8(Cond.G, loop);                                           /* jg loop */
            e.bind(stopped);
            e.aluRI(AluOp.ADD, true, X86Reg.RSP, 8);                              /* add rsp, 8 */
            for (X86Reg r : new X86Reg[]{BUDGET, LEFT, ENV, CTX, FN}) e.pop(r);
        });
    }
}
