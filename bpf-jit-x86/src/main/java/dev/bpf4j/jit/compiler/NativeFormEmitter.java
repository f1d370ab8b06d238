package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.CodeBuffer;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.jit.x86.Shift;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.runtime.NativeForm;

import java.util.function.Consumer;

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
    public record Function(byte[] code, int pushed, int framed, int ret) {
        /** {@code push rbp; mov rbp, rsp}, then {@code body}, then {@code leave; ret}. */
        static Function withFrame(Consumer<X86Encoder> body) {
            CodeBuffer buf = new CodeBuffer();
            X86Encoder e = new X86Encoder(buf);
            e.push(X86Reg.RBP);                                                   /* push rbp (rsp 16-byte aligned after it) */
            int pushed = e.position();
            e.movRR(true, X86Reg.RBP, X86Reg.RSP);                                   /* mov rbp, rsp */
            int framed = e.position();
            body.accept(e);
            e.leave();                                                         /* leave */
            int ret = e.position();
            e.ret();                                                           /* ret */
            return new Function(buf.toByteArray(), pushed, framed, ret);
        }
    }

    public static Function code(NativeForm form) {
        return Function.withFrame(e -> body(e, form));
    }

    private static void body(X86Encoder e, NativeForm form) {
        if (form instanceof NativeForm.ClockNs clock) {
            e.aluRI(AluOp.SUB, true, X86Reg.RSP, 16);                             /* sub rsp, 16 (struct timespec) */
            e.movImm32(X86Reg.RDI, clock.clockId());                              /* mov edi, clock id */
            e.movRR(true, X86Reg.RSI, X86Reg.RSP);                                   /* mov rsi, rsp */
            e.movabs(X86Reg.RAX, clock.clockGettime());                           /* movabs rax, clock_gettime */
            e.callR(X86Reg.RAX);                                                  /* call rax */
            e.load(true, X86Reg.RAX, Mem.of(X86Reg.RSP, 0));                         /* mov rax, [rsp] (tv_sec) */
            e.imulRRI(true, X86Reg.RAX, X86Reg.RAX, 1_000_000_000);                  /* imul rax, rax, 10^9 */
            e.aluRM(AluOp.ADD, true, X86Reg.RAX, Mem.of(X86Reg.RSP, 8));             /* add rax, [rsp + 8] (tv_nsec) */
        } else if (form instanceof NativeForm.CurrentCpu cpu) {
            currentCpu(e, cpu.schedGetcpu(), cpu.cpus());
            e.movRR(false, X86Reg.RAX, X86Reg.RAX);                                  /* mov eax, eax (zero-extend the int) */
        } else if (form instanceof NativeForm.PidTgid ids) {
            pidTgid(e, ids);
        } else if (form instanceof NativeForm.PrandomU32 rnd) {
            prandomU32(e, rnd);
        } else if (form instanceof NativeForm.ProbeRead read) {
            ProbeReadEmitter.body(e, read);
        } else if (form instanceof NativeForm.ProbeReadStr read) {
            ProbeReadStrEmitter.body(e, read);
        } else if (form instanceof NativeForm.RingBufOutput) {
            RingBufOutputEmitter.body(e);
        } else if (form instanceof NativeForm.RingBufReserve) {
            RingBufReserveEmitter.body(e);
        } else if (form instanceof NativeForm.RingBufCommit commit) {
            RingBufCommitEmitter.body(e, commit.discard());
        } else if (form instanceof NativeForm.RingBufQuery) {
            RingBufQueryEmitter.body(e);
        } else {
            throw new IllegalArgumentException("unknown native form " + form);
        }
    }

    /**
     * eax = {@code sched_getcpu()} at {@code schedGetcpu} when it answers below {@code cpus} (u32
     * compare: an error, -1, is past it), else 0: {@code Cpus.current} as native code. A plain call:
     * it clobbers the caller-saved registers, and rsp must be 16-byte aligned.
     */
    static void currentCpu(X86Encoder e, long schedGetcpu, int cpus) {
        e.movabs(X86Reg.RAX, schedGetcpu);                                        /* movabs rax, sched_getcpu */
        e.callR(X86Reg.RAX);                                                      /* call rax */
        e.aluRI(AluOp.CMP, false, X86Reg.RAX, cpus);                              /* cmp eax, cpus */
        int known = e.jccForward8(Cond.B);                                     /* jb .cpu */
        e.aluRR(AluOp.XOR, false, X86Reg.RAX, X86Reg.RAX);                           /* xor eax, eax (as Cpus.current) */
        e.bind(known);                                                         /* .cpu: */
    }

    /** x86-64 {@code __NR_gettid} and {@code __NR_getrandom}. */
    private static final int SYS_GETTID = 186, SYS_GETRANDOM = 318;

    /**
     * rax = this thread's cached {@code pid << 32 | tid}; on its first call computed and cached.
     */
    private static void pidTgid(X86Encoder e, NativeForm.PidTgid f) {
        findSlot(e, f.slot());
        int first = e.jccForward8(Cond.E);                                     /* je .first (nothing cached yet) */
        e.load(true, X86Reg.RAX, Mem.of(X86Reg.RAX, 0));                             /* mov rax, [rax] */
        int done = e.jmpForward32();                                           /* jmp .done */
        e.bind(first);                                                         /* .first: */
        e.movabs(X86Reg.RAX, f.getpid());                                         /* movabs rax, getpid */
        e.callR(X86Reg.RAX);                                                      /* call rax */
        e.movRR(false, X86Reg.RBX, X86Reg.RAX);                                      /* mov ebx, eax (pid) */
        e.shiftImm(Shift.SHL, true, X86Reg.RBX, 32);                              /* shl rbx, 32 */
        e.movImm32(X86Reg.RDI, SYS_GETTID);                                       /* mov edi, __NR_gettid */
        e.aluRR(AluOp.XOR, false, X86Reg.RAX, X86Reg.RAX);                           /* xor eax, eax (variadic: no vector arguments) */
        e.movabs(X86Reg.R11, f.syscall());                                        /* movabs r11, syscall */
        e.callR(X86Reg.R11);                                                      /* call r11 */
        e.movRR(false, X86Reg.RAX, X86Reg.RAX);                                      /* mov eax, eax (u32 tid) */
        e.aluRR(AluOp.OR, true, X86Reg.RBX, X86Reg.RAX);                             /* or rbx, rax */
        keepInSlot(e, f.slot());
        e.movRR(true, X86Reg.RAX, X86Reg.RBX);                                       /* mov rax, rbx */
        e.bind32(done);                                                        /* .done: */
        e.load(true, X86Reg.RBX, Mem.of(X86Reg.RBP, -8));                            /* mov rbx, [rbp - 8] */
    }

    /**
     * rax = the next u32 of this thread's generator ({@code NativeForm.PrandomU32}): its seed moves on by
     * GAMMA and is mixed. A thread's first call seeds it from getrandom (or, should that fail, from
     * its stack address) and caches the moved seed.
     */
    private static void prandomU32(X86Encoder e, NativeForm.PrandomU32 f) {
        findSlot(e, f.slot());
        int first = e.jccForward8(Cond.E);                                     /* je .first (no seed yet) */
        e.load(true, X86Reg.RCX, Mem.of(X86Reg.RAX, 0));                             /* mov rcx, [rax] */
        e.movabs(X86Reg.RDX, NativeForm.PrandomU32.GAMMA);                        /* movabs rdx, GAMMA */
        e.aluRR(AluOp.ADD, true, X86Reg.RCX, X86Reg.RDX);                            /* add rcx, rdx */
        e.store(8, Mem.of(X86Reg.RAX, 0), X86Reg.RCX);                               /* mov [rax], rcx */
        int mix = e.jmpForward32();                                            /* jmp .mix */
        e.bind(first);                                                         /* .first: */
        e.store(8, Mem.of(X86Reg.RSP, 0), X86Reg.RSP);                               /* mov [rsp], rsp (the seed should getrandom fail) */
        e.movImm32(X86Reg.RDI, SYS_GETRANDOM);                                    /* mov edi, __NR_getrandom */
        e.movRR(true, X86Reg.RSI, X86Reg.RSP);                                       /* mov rsi, rsp */
        e.movImm32(X86Reg.RDX, 8);                                                /* mov edx, 8 */
        e.aluRR(AluOp.XOR, false, X86Reg.RCX, X86Reg.RCX);                           /* xor ecx, ecx (flags) */
        e.aluRR(AluOp.XOR, false, X86Reg.RAX, X86Reg.RAX);                           /* xor eax, eax (variadic: no vector arguments) */
        e.movabs(X86Reg.R11, f.syscall());                                        /* movabs r11, syscall */
        e.callR(X86Reg.R11);                                                      /* call r11 */
        e.load(true, X86Reg.RBX, Mem.of(X86Reg.RSP, 0));                             /* mov rbx, [rsp] */
        e.movabs(X86Reg.RAX, NativeForm.PrandomU32.GAMMA);                        /* movabs rax, GAMMA */
        e.aluRR(AluOp.ADD, true, X86Reg.RBX, X86Reg.RAX);                            /* add rbx, rax */
        keepInSlot(e, f.slot());
        e.movRR(true, X86Reg.RCX, X86Reg.RBX);                                       /* mov rcx, rbx */
        e.bind32(mix);                                                         /* .mix: (rcx = seed) */
        mixStep(e, 0xff51afd7ed558ccdL);
        e.movRR(true, X86Reg.RCX, X86Reg.RAX);                                       /* mov rcx, rax */
        mixStep(e, 0xc4ceb9fe1a85ec53L);
        e.shiftImm(Shift.SHR, true, X86Reg.RAX, 32);                              /* shr rax, 32 */
        e.load(true, X86Reg.RBX, Mem.of(X86Reg.RBP, -8));                            /* mov rbx, [rbp - 8] */
    }

    /** rax = (rcx ^ rcx >>> 33) * {@code multiplier}; clobbers rdx. */
    private static void mixStep(X86Encoder e, long multiplier) {
        e.movRR(true, X86Reg.RAX, X86Reg.RCX);                                       /* mov rax, rcx */
        e.shiftImm(Shift.SHR, true, X86Reg.RAX, 33);                              /* shr rax, 33 */
        e.aluRR(AluOp.XOR, true, X86Reg.RAX, X86Reg.RCX);                            /* xor rax, rcx */
        e.movabs(X86Reg.RDX, multiplier);                                         /* movabs rdx, multiplier */
        e.imulRR(true, X86Reg.RAX, X86Reg.RDX);                                      /* imul rax, rdx */
    }

    /**
     * Saves rbx (with 8 bytes more, which keep rsp 16-byte aligned for the calls and serve as scratch at
     * [rsp]; the caller restores it from [rbp - 8] before the shared {@code leave; ret}), then rax = the
     * thread's slot from {@code pthread_getspecific}, ZF set when it has none yet.
     */
    private static void findSlot(X86Encoder e, NativeForm.ThreadSlot s) {
        e.push(X86Reg.RBX);                                                       /* push rbx */
        e.aluRI(AluOp.SUB, true, X86Reg.RSP, 8);                                  /* sub rsp, 8 */
        e.movImm32(X86Reg.RDI, s.key());                                          /* mov edi, key */
        e.movabs(X86Reg.RAX, s.getspecific());                                    /* movabs rax, pthread_getspecific */
        e.callR(X86Reg.RAX);                                                      /* call rax */
        e.testRR(true, X86Reg.RAX, X86Reg.RAX);                                      /* test rax, rax */
    }

    /**
     * Keeps rbx in a new slot of this thread (8 bytes from malloc, set with pthread_setspecific; should
     * either fail, the next call computes again). Clobbers the caller-saved registers.
     */
    private static void keepInSlot(X86Encoder e, NativeForm.ThreadSlot s) {
        e.movImm32(X86Reg.RDI, 8);                                                /* mov edi, 8 */
        e.movabs(X86Reg.RAX, s.malloc());                                         /* movabs rax, malloc */
        e.callR(X86Reg.RAX);                                                      /* call rax */
        e.testRR(true, X86Reg.RAX, X86Reg.RAX);                                      /* test rax, rax */
        int noMemory = e.jccForward8(Cond.E);                                  /* je .uncached */
        e.store(8, Mem.of(X86Reg.RAX, 0), X86Reg.RBX);                               /* mov [rax], rbx */
        e.movImm32(X86Reg.RDI, s.key());                                          /* mov edi, key */
        e.movRR(true, X86Reg.RSI, X86Reg.RAX);                                       /* mov rsi, rax */
        e.movabs(X86Reg.RAX, s.setspecific());                                    /* movabs rax, pthread_setspecific */
        e.callR(X86Reg.RAX);                                                      /* call rax */
        e.bind(noMemory);                                                      /* .uncached: */
    }
}
