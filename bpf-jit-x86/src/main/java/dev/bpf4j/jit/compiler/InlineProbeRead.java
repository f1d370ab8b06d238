package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.HelperBinding;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.runtime.Limits;
import dev.bpf4j.runtime.NativeForm;

/**
 * A {@code bpf_probe_read}/{@code _user}/{@code _kernel} (or {@code _str}) call site that calls the helper's native code
 * ({@link ProbeReadEmitter}, {@link ProbeReadStrEmitter}) instead of the Java body (≈70 ns of JNI upcall) when the body's checks are
 * known to pass and its copy would give the same bytes:
 * <ul>
 *   <li>dst (r1) with its {@code size} (u32 r2) bytes inside the current frame, {@code [r10 - 512, r10]}, which
 *       the body's writable check accepts (only where the verifier says r1 may point into a frame: else the
 *       body refuses a frame pointer);</li>
 *   <li>dst and src not overlapping: the body copies an accessible source word by word (a string byte by byte) in
 *       place, where {@code process_vm_readv} would give other bytes.</li>
 * </ul>
 * Anything else calls the Java body, which checks, refuses or reads, so r0, errors and memory stay the
 * body's (the interpreter always calls it).
 *
 * <pre>
 *   mov eax, esi                        ; size
 *   mov r10, rdi; sub r10, rbp          ; dst - rbp in [-512, 0], dst + size - rbp &lt;= 0, else .call
 *   mov r10, rdx; sub r10, rdi; cmp r10, rax; jb .call   ; src inside [dst, dst + size)
 *   mov r10, rdi; sub r10, rdx; cmp r10, rax; jb .call   ; dst inside [src, src + size)
 *   call native; jmp .done
 * .call: call the Java body
 * .done:
 * </pre>
 */
final class InlineProbeRead {
    private InlineProbeRead() {}

    /** Emits the guarded native call and the body's call and returns true, or emits nothing and returns false. */
    static boolean emit(JitContext c, int pc, HelperBinding b) {
        HelperBinding.FastPath fast = b.fastPath();
        if (fast == null || !(fast.form() instanceof NativeForm.ProbeRead || fast.form() instanceof NativeForm.ProbeReadStr)) return false;
        if (c.aux != null && !c.aux.argTouchesFrames(pc, 1)) return false; // the body would refuse a frame dst: keep its error
        X86Encoder e = c.e;
        X86Reg dst = RegMap.x86(1), size = X86Reg.RAX, src = RegMap.x86(3), t = RegMap.AUX, end = RegMap.AUX2;
        e.movRR(false, size, RegMap.x86(2));                                      /* mov eax, esi (u32 size; r0 is the call's) */
        e.movRR(true, t, dst);                                                    /* mov r10, rdi */
        e.aluRR(AluOp.SUB, true, t, X86Reg.RBP);                                  /* sub r10, rbp */
        e.aluRI(AluOp.CMP, true, t, -Limits.STACK_SIZE);                          /* cmp r10, -512 */
        int below = e.jccForward32(Cond.L);                                       /* jl .call */
        e.testRR(true, t, t);                                                     /* test r10, r10 */
        int above = e.jccForward32(Cond.G);                                       /* jg .call */
        e.movRR(true, end, t);                                                    /* mov r11, r10 */
        e.aluRR(AluOp.ADD, true, end, size);                                      /* add r11, rax (no overflow: r10 in [-512, 0]) */
        e.testRR(true, end, end);                                                 /* test r11, r11 */
        int past = e.jccForward32(Cond.G);                                        /* jg .call (dst + size > rbp) */
        e.movRR(true, t, src);                                                    /* mov r10, rdx */
        e.aluRR(AluOp.SUB, true, t, dst);                                         /* sub r10, rdi */
        e.aluRR(AluOp.CMP, true, t, size);                                        /* cmp r10, rax */
        int srcInDst = e.jccForward32(Cond.B);                                    /* jb .call (src - dst < size, unsigned) */
        e.movRR(true, t, dst);                                                    /* mov r10, rdi */
        e.aluRR(AluOp.SUB, true, t, src);                                         /* sub r10, rdx */
        e.aluRR(AluOp.CMP, true, t, size);                                        /* cmp r10, rax */
        int dstInSrc = e.jccForward32(Cond.B);                                    /* jb .call (dst - src < size, unsigned) */
        CallEmitter.call(c, pc, HelperBinding.nativeCode(b.id(), b.name(), fast.address(), fast.keepAlive()));
        int done = e.jmpForward32();                                              /* jmp .done */
        InlineLookup.callAndJoin(c, pc, b, new int[] {below, above, past, srcInDst, dstInSrc}, done);
        return true;
    }
}
