package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.HelperBinding;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.runtime.Limits;
import dev.bpf4j.runtime.NativeForm;

/**
 * A {@code bpf_ringbuf_output} call site that calls the helper's native code ({@link RingBufOutputEmitter})
 * instead of the Java body when the body's checks are known to pass:
 * <ul>
 *   <li>r1 a constant handle ({@code CallSiteConstants}) of a ring buffer of the load, still open (its
 *       open word, tested at each call);</li>
 *   <li>the data (r2) with its size (r3, at most 512) inside the current frame {@code [r10 - 512, r10]},
 *       which the body's readable check accepts (only where the verifier says r2 may point into a frame).</li>
 * </ul>
 * r1 is then replaced by the ring's block address. Anything else calls the Java body, which checks,
 * refuses or outputs, so r0, errors and the ring stay the body's (the interpreter always calls it).
 *
 * <pre>
 *   movabs r10, open word; cmp qword [r10], 0; je .call
 *   cmp rdx, 512; ja .call
 *   mov r10, rsi; sub r10, rbp          ; in [-512, 0], and + size &lt;= 0, else .call
 *   movabs rdi, ring block; call native; jmp .done
 * .call: call the Java body
 * .done:
 * </pre>
 */
final class InlineRingBufOutput {
    private InlineRingBufOutput() {}

    /** Emits the guarded native call and the body's call and returns true, or emits nothing and returns false. */
    static boolean emit(JitContext c, int pc, HelperBinding b) {
        HelperBinding.FastPath fast = b.fastPath();
        if (fast == null || !(fast.form() instanceof NativeForm.RingBufOutput form) || !c.callR1.knows(pc)) return false;
        if (c.aux != null && !c.aux.argTouchesFrames(pc, 2)) return false; // the body would refuse frame data: keep its error
        NativeForm.RingBufOutput.RingBlock ring = form.rings().apply(c.callR1.r1(pc));
        if (ring == null) return false;
        X86Encoder e = c.e;
        X86Reg data = RegMap.x86(2), size = RegMap.x86(3), t = RegMap.AUX;
        e.movabs(t, ring.openWord());                                             /* movabs r10, open word */
        e.aluMI(AluOp.CMP, true, Mem.of(t, 0), 0);                                /* cmp qword [r10], 0 */
        int closed = e.jccForward32(Cond.E);                                      /* je .call (the map was closed) */
        e.aluRI(AluOp.CMP, true, size, Limits.STACK_SIZE);                        /* cmp rdx, 512 */
        int large = e.jccForward32(Cond.A);                                       /* ja .call (unsigned: negative sizes too) */
        e.movRR(true, t, data);                                                   /* mov r10, rsi */
        e.aluRR(AluOp.SUB, true, t, X86Reg.RBP);                                  /* sub r10, rbp */
        e.aluRI(AluOp.CMP, true, t, -Limits.STACK_SIZE);                          /* cmp r10, -512 */
        int below = e.jccForward32(Cond.L);                                       /* jl .call */
        e.testRR(true, t, t);                                                     /* test r10, r10 */
        int above = e.jccForward32(Cond.G);                                       /* jg .call */
        e.aluRR(AluOp.ADD, true, t, size);                                        /* add r10, rdx */
        e.testRR(true, t, t);                                                     /* test r10, r10 */
        int past = e.jccForward32(Cond.G);                                        /* jg .call (data + size > rbp) */
        e.movabs(RegMap.x86(1), ring.base());                                     /* movabs rdi, ring block */
        CallEmitter.call(c, pc, HelperBinding.nativeCode(b.id(), b.name(), fast.address(), fast.keepAlive()));
        int done = e.jmpForward32();                                              /* jmp .done */
        InlineLookup.callAndJoin(c, pc, b, new int[] {closed, large, below, above, past}, done);
        return true;
    }
}
