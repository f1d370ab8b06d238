package dev.bpf4j.jit;

import dev.bpf4j.jit.runtime.ExecutableMemory;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.CodeBuffer;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.Shift;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.jit.x86.X86Encoder;

/** Native helpers generated with the JIT's own encoder, for tests that need the real machine state. */
public final class NativeCode {
    private NativeCode() {}

    /**
     * {@code long capture(long *out, long top)}: a frameless leaf that records the state a sampler
     * would see at its first instruction — out[0] = rbp, out[1] = rsp (pointing at its return
     * address) — then copies the stack {@code [rsp, top)} to out + 16 and returns its length.
     */
    public static ExecutableMemory captureStack() {
        CodeBuffer b = new CodeBuffer();
        X86Encoder e = new X86Encoder(b);
        e.store(8, Mem.of(X86Reg.RDI, 0), X86Reg.RBP);            /* mov [rdi], rbp */
        e.store(8, Mem.of(X86Reg.RDI, 8), X86Reg.RSP);            /* mov [rdi + 8], rsp */
        e.aluRI(AluOp.ADD, true, X86Reg.RDI, 16);              /* add rdi, 16 */
        e.movRR(true, X86Reg.RCX, X86Reg.RSI);                    /* mov rcx, rsi */
        e.aluRR(AluOp.SUB, true, X86Reg.RCX, X86Reg.RSP);         /* sub rcx, rsp (bytes) */
        e.movRR(true, X86Reg.RAX, X86Reg.RCX);                    /* mov rax, rcx (result) */
        e.shiftImm(Shift.SHR, true, X86Reg.RCX, 3); /* shr rcx, 3 (quadwords) */
        e.movRR(true, X86Reg.RSI, X86Reg.RSP);                    /* mov rsi, rsp */
        int loop = e.position();                            /* .copy: */
        e.load(true, X86Reg.RDX, Mem.of(X86Reg.RSI, 0));          /* mov rdx, [rsi] */
        e.store(8, Mem.of(X86Reg.RDI, 0), X86Reg.RDX);            /* mov [rdi], rdx */
        e.aluRI(AluOp.ADD, true, X86Reg.RSI, 8);               /* add rsi, 8 */
        e.aluRI(AluOp.ADD, true, X86Reg.RDI, 8);               /* add rdi, 8 */
        e.aluRI(AluOp.SUB, true, X86Reg.RCX, 1);               /* sub rcx, 1 */
        e.jccRel8(Cond.NE, loop);                           /* jne .copy */
        e.ret();                                            /* ret */
        return ExecutableMemory.of(b.toByteArray());
    }
}
