package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.CodeBuffer;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.Reg;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.runtime.NativeForm;

/**
 * A helper's {@link NativeForm} as a small native function with the helper calling convention (BPF
 * r1-r5 in the SysV argument registers, r0 in rax) and a proper rbp frame, so the JIT calls it as it
 * calls any native helper instead of the Java body through the jffi closure.
 */
public final class NativeFormEmitter {
    private NativeFormEmitter() {}

    public static byte[] code(NativeForm form) {
        CodeBuffer buf = new CodeBuffer();
        X86Encoder e = new X86Encoder(buf);
        e.push(Reg.RBP);                                                       /* push rbp (rsp 16-byte aligned after it) */
        e.movRR(true, Reg.RBP, Reg.RSP);                                       /* mov rbp, rsp */
        if (form instanceof NativeForm.ClockNs clock) {
            e.aluRI(AluOp.SUB, true, Reg.RSP, 16);                             /* sub rsp, 16 (struct timespec) */
            e.movImm32(Reg.RDI, clock.clockId());                              /* mov edi, clock id */
            e.movRR(true, Reg.RSI, Reg.RSP);                                   /* mov rsi, rsp */
            e.movabs(Reg.RAX, clock.clockGettime());                           /* movabs rax, clock_gettime */
            e.callR(Reg.RAX);                                                  /* call rax */
            e.load(true, Reg.RAX, Mem.of(Reg.RSP, 0));                         /* mov rax, [rsp] (tv_sec) */
            e.imulRRI(true, Reg.RAX, Reg.RAX, 1_000_000_000);                  /* imul rax, rax, 10^9 */
            e.aluRM(AluOp.ADD, true, Reg.RAX, Mem.of(Reg.RSP, 8));             /* add rax, [rsp + 8] (tv_nsec) */
        } else if (form instanceof NativeForm.CurrentCpu cpu) {
            e.movabs(Reg.RAX, cpu.schedGetcpu());                              /* movabs rax, sched_getcpu */
            e.callR(Reg.RAX);                                                  /* call rax */
            e.aluRI(AluOp.CMP, false, Reg.RAX, cpu.cpus());                    /* cmp eax, cpus */
            int known = e.jccForward8(Cond.B);                                 /* jb .cpu (u32: an error, -1, is past it) */
            e.aluRR(AluOp.XOR, false, Reg.RAX, Reg.RAX);                       /* xor eax, eax (as Cpus.current) */
            e.bind(known);                                                     /* .cpu: */
            e.movRR(false, Reg.RAX, Reg.RAX);                                  /* mov eax, eax (zero-extend the int) */
        } else {
            throw new IllegalArgumentException("unknown native form " + form);
        }
        e.leave();                                                             /* leave */
        e.ret();                                                               /* ret */
        return buf.toByteArray();
    }
}
