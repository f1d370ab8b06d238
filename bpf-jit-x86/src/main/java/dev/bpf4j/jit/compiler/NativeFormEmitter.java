package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.CodeBuffer;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.Reg;
import dev.bpf4j.jit.x86.Shift;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.runtime.NativeForm;

/**
 * A helper's {@link NativeForm} as a small native function with the helper calling convention (BPF
 * r1-r5 in the SysV argument registers, r0 in rax) and a proper rbp frame, so the JIT calls it as it
 * calls any native helper instead of the Java body through the jffi closure.
 */
public final class NativeFormEmitter {
    private NativeFormEmitter() {}

    /**
     * The function's bytes, and where its frame is: {@code [0, pushed)} before {@code push rbp} (return
     * address at [rsp]), {@code [pushed, framed)} before {@code mov rbp, rsp} (at [rsp + 8]), {@code
     * [framed, ret)} inside the rbp frame ({@code leave} included), {@code ret} the last byte.
     */
    public record Function(byte[] code, int pushed, int framed, int ret) {}

    public static Function code(NativeForm form) {
        CodeBuffer buf = new CodeBuffer();
        X86Encoder e = new X86Encoder(buf);
        e.push(Reg.RBP);                                                       /* push rbp (rsp 16-byte aligned after it) */
        int pushed = e.position();
        e.movRR(true, Reg.RBP, Reg.RSP);                                       /* mov rbp, rsp */
        int framed = e.position();
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
            currentCpu(e, cpu.schedGetcpu(), cpu.cpus());
            e.movRR(false, Reg.RAX, Reg.RAX);                                  /* mov eax, eax (zero-extend the int) */
        } else if (form instanceof NativeForm.PidTgid ids) {
            pidTgid(e, ids);
        } else {
            throw new IllegalArgumentException("unknown native form " + form);
        }
        e.leave();                                                             /* leave */
        int ret = e.position();
        e.ret();                                                               /* ret */
        return new Function(buf.toByteArray(), pushed, framed, ret);
    }

    /**
     * eax = {@code sched_getcpu()} at {@code schedGetcpu} when it answers below {@code cpus} (u32
     * compare: an error, -1, is past it), else 0: {@code Cpus.current} as native code. A plain call:
     * it clobbers the caller-saved registers, and rsp must be 16-byte aligned.
     */
    static void currentCpu(X86Encoder e, long schedGetcpu, int cpus) {
        e.movabs(Reg.RAX, schedGetcpu);                                        /* movabs rax, sched_getcpu */
        e.callR(Reg.RAX);                                                      /* call rax */
        e.aluRI(AluOp.CMP, false, Reg.RAX, cpus);                              /* cmp eax, cpus */
        int known = e.jccForward8(Cond.B);                                     /* jb .cpu */
        e.aluRR(AluOp.XOR, false, Reg.RAX, Reg.RAX);                           /* xor eax, eax (as Cpus.current) */
        e.bind(known);                                                         /* .cpu: */
    }

    /** x86-64 {@code __NR_gettid}. */
    private static final int SYS_GETTID = 186;

    /**
     * rax = this thread's cached {@code pid << 32 | tid}; on its first call computed and cached. rbx
     * is callee-saved in SysV: pushed (with 8 bytes more, to keep rsp 16-byte aligned for the calls)
     * and restored before the shared {@code leave; ret}.
     */
    private static void pidTgid(X86Encoder e, NativeForm.PidTgid f) {
        e.push(Reg.RBX);                                                       /* push rbx */
        e.aluRI(AluOp.SUB, true, Reg.RSP, 8);                                  /* sub rsp, 8 */
        e.movImm32(Reg.RDI, f.key());                                          /* mov edi, key */
        e.movabs(Reg.RAX, f.getspecific());                                    /* movabs rax, pthread_getspecific */
        e.callR(Reg.RAX);                                                      /* call rax */
        e.testRR(true, Reg.RAX, Reg.RAX);                                      /* test rax, rax */
        int first = e.jccForward8(Cond.E);                                     /* je .first (nothing cached yet) */
        e.load(true, Reg.RAX, Mem.of(Reg.RAX, 0));                             /* mov rax, [rax] */
        int done = e.jmpForward32();                                           /* jmp .done */
        e.bind(first);                                                         /* .first: */
        e.movabs(Reg.RAX, f.getpid());                                         /* movabs rax, getpid */
        e.callR(Reg.RAX);                                                      /* call rax */
        e.movRR(false, Reg.RBX, Reg.RAX);                                      /* mov ebx, eax (pid) */
        e.shiftImm(Shift.SHL, true, Reg.RBX, 32);                              /* shl rbx, 32 */
        e.movImm32(Reg.RDI, SYS_GETTID);                                       /* mov edi, __NR_gettid */
        e.aluRR(AluOp.XOR, false, Reg.RAX, Reg.RAX);                           /* xor eax, eax (variadic: no vector arguments) */
        e.movabs(Reg.R11, f.syscall());                                        /* movabs r11, syscall */
        e.callR(Reg.R11);                                                      /* call r11 */
        e.movRR(false, Reg.RAX, Reg.RAX);                                      /* mov eax, eax (u32 tid) */
        e.aluRR(AluOp.OR, true, Reg.RBX, Reg.RAX);                             /* or rbx, rax */
        e.movImm32(Reg.RDI, 8);                                                /* mov edi, 8 */
        e.movabs(Reg.RAX, f.malloc());                                         /* movabs rax, malloc */
        e.callR(Reg.RAX);                                                      /* call rax */
        e.testRR(true, Reg.RAX, Reg.RAX);                                      /* test rax, rax */
        int noMemory = e.jccForward8(Cond.E);                                  /* je .uncached */
        e.store(8, Mem.of(Reg.RAX, 0), Reg.RBX);                               /* mov [rax], rbx */
        e.movImm32(Reg.RDI, f.key());                                          /* mov edi, key */
        e.movRR(true, Reg.RSI, Reg.RAX);                                       /* mov rsi, rax */
        e.movabs(Reg.RAX, f.setspecific());                                    /* movabs rax, pthread_setspecific */
        e.callR(Reg.RAX);                                                      /* call rax (should it fail, the next call computes again) */
        e.bind(noMemory);                                                      /* .uncached: */
        e.movRR(true, Reg.RAX, Reg.RBX);                                       /* mov rax, rbx */
        e.bind32(done);                                                        /* .done: */
        e.load(true, Reg.RBX, Mem.of(Reg.RBP, -8));                            /* mov rbx, [rbp - 8] */
    }
}
