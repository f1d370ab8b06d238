package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.Shift;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.maps.Errno;
import dev.bpf4j.runtime.Limits;
import dev.bpf4j.runtime.NativeForm;

/**
 * The body of {@code bpf_probe_read}/{@code _user}/{@code _kernel} as native code ({@link NativeForm.ProbeRead}):
 * {@code long f(void *dst, u32 size, const void *src)}, called only where dst is known writable (in the
 * caller's frame, {@link InlineProbeRead}). It reads as {@code ProbeMemory} does in PROCESS mode: a source
 * the run may access is copied directly, any other by the kernel through {@code process_vm_readv} on our own pid, which answers {@code -EFAULT} for an
 * unmapped or unreadable page instead of faulting, so no source address can crash the JVM. The raw
 * {@code syscall} instruction is used (libc's wrapper would only add a call and errno):
 *
 * <pre>
 *   mov esi, esi                        ; size = (u32) r2
 *   (_kernel: src below mmap_min_addr or not canonical: .erange)
 *   test rsi, rsi; je .ok               ; size 0: nothing to read
 *   (src in the BPF frame or in a region of the run: copied directly, .ok)
 *   sub rsp, 32                         ; struct iovec local = {dst, size} at [rsp], remote = {src, size} at [rsp + 16]
 *   process_vm_readv(pid, &amp;local, 1, &amp;remote, 1, 0)
 *   cmp rax, size; jne .efault          ; an error or a short read (a page past the first unreadable)
 * .ok:     xor eax, eax
 * .efault: dst zero-filled (rep stosb), rax = -EFAULT
 * .erange: dst zero-filled, rax = -ERANGE
 * </pre>
 */
final class ProbeReadEmitter {
    private ProbeReadEmitter() {}

    /** x86-64 {@code __NR_process_vm_readv}. */
    static final int SYS_PROCESS_VM_READV = 310;

    static void body(X86Encoder e, NativeForm.ProbeRead f) {
        X86Reg dst = X86Reg.RDI, size = X86Reg.RSI, src = X86Reg.RDX;
        e.movRR(false, size, size);                                               /* mov esi, esi (the u32 size) */
        int erange1 = -1, erange2 = -1;
        if (f.kernel()) {
            int[] refused = kernelRefuses(e);
            erange1 = refused[0];
            erange2 = refused[1];
        }
        e.testRR(true, size, size);                                               /* test rsi, rsi */
        int empty = e.jccForward32(Cond.E);                                       /* je .ok (size 0) */
        int copied = directCopy(e);
        e.aluRI(AluOp.SUB, true, X86Reg.RSP, 32);                                 /* sub rsp, 32 (two iovecs) */
        e.store(8, Mem.of(X86Reg.RSP, 0), dst);                                   /* mov [rsp], rdi (local.iov_base) */
        e.store(8, Mem.of(X86Reg.RSP, 8), size);                                  /* mov [rsp + 8], rsi (local.iov_len) */
        e.store(8, Mem.of(X86Reg.RSP, 16), src);                                  /* mov [rsp + 16], rdx (remote.iov_base) */
        e.store(8, Mem.of(X86Reg.RSP, 24), size);                                 /* mov [rsp + 24], rsi (remote.iov_len) */
        e.movImm32(X86Reg.RDI, f.pid());                                          /* mov edi, pid */
        e.movRR(true, X86Reg.RSI, X86Reg.RSP);                                    /* mov rsi, rsp (local_iov) */
        e.movImm32(X86Reg.RDX, 1);                                                /* mov edx, 1 (liovcnt) */
        e.lea(X86Reg.R10, Mem.of(X86Reg.RSP, 16));                                /* lea r10, [rsp + 16] (remote_iov) */
        e.movImm32(X86Reg.R8, 1);                                                 /* mov r8d, 1 (riovcnt) */
        e.aluRR(AluOp.XOR, false, X86Reg.R9, X86Reg.R9);                          /* xor r9d, r9d (flags) */
        e.movImm32(X86Reg.RAX, SYS_PROCESS_VM_READV);                             /* mov eax, __NR_process_vm_readv */
        syscall(e);                                                               /* syscall (clobbers rcx, r11) */
        e.aluRM(AluOp.CMP, true, X86Reg.RAX, Mem.of(X86Reg.RSP, 8));              /* cmp rax, [rsp + 8] */
        int fault = e.jccForward32(Cond.NE);                                      /* jne .efault */
        e.bind32(empty);                                                          /* .ok: */
        e.bind32(copied);
        e.aluRR(AluOp.XOR, false, X86Reg.RAX, X86Reg.RAX);                        /* xor eax, eax */
        int done = e.jmpForward32();                                              /* jmp .done */
        e.bind32(fault);                                                          /* .efault: */
        e.load(true, X86Reg.RDI, Mem.of(X86Reg.RSP, 0));                          /* mov rdi, [rsp] (dst) */
        e.load(true, X86Reg.RSI, Mem.of(X86Reg.RSP, 8));                          /* mov rsi, [rsp + 8] (size) */
        zeroFill(e);
        e.movImmSx(X86Reg.RAX, -Errno.EFAULT);                                    /* mov rax, -EFAULT */
        int faulted = e.jmpForward32();                                           /* jmp .done */
        if (f.kernel()) {
            e.bind32(erange1);                                                    /* .erange: */
            e.bind32(erange2);
            zeroFill(e);
            e.movImmSx(X86Reg.RAX, -Errno.ERANGE);                                /* mov rax, -ERANGE */
        }
        e.bind32(done);                                                           /* .done: */
        e.bind32(faulted);
    }

    /**
     * A source the run may access is copied directly, in {@code ProbeMemory.copyForward}'s order (8-byte
     * words, then 4, 2, 1, each read before it is written): what the body does for it, without the system
     * call (≈4 µs on the loaded test VMs, against ≈0.1 µs for the copy). Any other source falls through to
     * process_vm_readv. Returns the jump to {@code .ok}. Clobbers rax, rcx, r8-r10.
     */
    private static int directCopy(X86Encoder e) {
        X86Reg dst = X86Reg.RDI, size = X86Reg.RSI, src = X86Reg.RDX;
        int[] direct = sourceAccessible(e);
        int syscall = e.jmpForward32();                                           /* jmp .syscall */
        for (int j : direct) e.bind32(j);                                         /* .direct: */
        X86Reg from = X86Reg.R8, to = X86Reg.R9, left = X86Reg.R10;
        e.movRR(true, from, src);                                                 /* mov r8, rdx */
        e.movRR(true, to, dst);                                                   /* mov r9, rdi */
        e.movRR(true, left, size);                                                /* mov r10, rsi */
        int words = e.position();                                                 /* .w8: */
        e.aluRI(AluOp.CMP, true, left, 8);                                        /* cmp r10, 8 */
        int tail = e.jccForward8(Cond.B);                                         /* jb .tail */
        e.load(true, X86Reg.RAX, Mem.of(from, 0));                                /* mov rax, [r8] */
        e.store(8, Mem.of(to, 0), X86Reg.RAX);                                    /* mov [r9], rax */
        step(e, 8);
        e.jmpTo(words);                                                           /* jmp .w8 */
        e.bind(tail);                                                             /* .tail: (fewer than 8 left) */
        for (int width = 4; width >= 1; width /= 2) {
            e.aluRI(AluOp.CMP, true, left, width);                                /* cmp r10, width */
            int skip = e.jccForward8(Cond.B);                                     /* jb .narrower */
            if (width == 4) e.load(false, X86Reg.RAX, Mem.of(from, 0));           /* mov eax, [r8] */
            else if (width == 2) e.loadZx16(X86Reg.RAX, Mem.of(from, 0));         /* movzx eax, word [r8] */
            else e.loadZx8(X86Reg.RAX, Mem.of(from, 0));                          /* movzx eax, byte [r8] */
            e.store(width, Mem.of(to, 0), X86Reg.RAX);                            /* mov [r9], eax/ax/al */
            step(e, width);
            e.bind(skip);                                                         /* .narrower: */
        }
        int done = e.jmpForward32();                                              /* jmp .ok */
        e.bind32(syscall);                                                        /* .syscall: */
        return done;
    }

    /**
     * Whether the rsi bytes at rdx lie inside the calling BPF function's frame ({@code [r10 - 512, r10]}, r10
     * being the rbp this function's prologue saved) or inside a region of the run's table (the env block,
     * r12: the JIT keeps it there across calls): returns the jumps taken when they do, falls through when
     * they do not. Such a source the body may read directly; for any other it asks the kernel, which reads
     * the same bytes of a readable page (the native forms are called only where dst does not overlap it).
     * Clobbers rax (the source's end), rcx and r8.
     */
    static int[] sourceAccessible(X86Encoder e) {
        X86Reg size = X86Reg.RSI, src = X86Reg.RDX, end = X86Reg.RAX;
        e.movRR(true, end, src);                                                  /* mov rax, rdx */
        e.aluRR(AluOp.ADD, true, end, size);                                      /* add rax, rsi (end of src) */
        int wraps = e.jccForward32(Cond.B);                                       /* jc .no */
        e.load(true, X86Reg.RCX, Mem.of(X86Reg.RBP, 0));                          /* mov rcx, [rbp] (the BPF function's r10) */
        e.aluRR(AluOp.CMP, true, end, X86Reg.RCX);                                /* cmp rax, rcx */
        int notFrame1 = e.jccForward8(Cond.A);                                    /* ja .regions */
        e.lea(X86Reg.R8, Mem.of(X86Reg.RCX, -Limits.STACK_SIZE));                 /* lea r8, [rcx - 512] */
        e.aluRR(AluOp.CMP, true, src, X86Reg.R8);                                 /* cmp rdx, r8 */
        int inFrame = e.jccForward32(Cond.AE);                                    /* jae .yes */
        e.bind(notFrame1);                                                        /* .regions: */
        e.load(true, X86Reg.RCX, JitContext.env(EnvLayout.REGION_COUNT));         /* mov rcx, [r12 + REGION_COUNT] */
        e.lea(X86Reg.R8, JitContext.env(EnvLayout.REGIONS));                      /* lea r8, [r12 + REGIONS] */
        int loop = e.position();                                                  /* .region: */
        e.testRR(true, X86Reg.RCX, X86Reg.RCX);                                   /* test rcx, rcx */
        int noRegion = e.jccForward32(Cond.E);                                    /* je .no */
        e.aluRM(AluOp.CMP, true, src, Mem.of(X86Reg.R8, 0));                      /* cmp rdx, [r8] (start) */
        int next1 = e.jccForward8(Cond.B);                                        /* jb .next */
        e.aluRM(AluOp.CMP, true, end, Mem.of(X86Reg.R8, EnvLayout.REGION_END));   /* cmp rax, [r8 + 8] (end) */
        int inRegion = e.jccForward32(Cond.BE);                                   /* jbe .yes */
        e.bind(next1);                                                            /* .next: */
        e.aluRI(AluOp.ADD, true, X86Reg.R8, EnvLayout.REGION_SIZE);               /* add r8, 24 */
        e.aluRI(AluOp.SUB, true, X86Reg.RCX, 1);                                  /* sub rcx, 1 */
        e.jmpTo(loop);                                                            /* jmp .region */
        e.bind32(wraps);                                                          /* .no: */
        e.bind32(noRegion);
        return new int[] {inFrame, inRegion};
    }

    /**
     * copy_from_kernel_nofault_allowed for the source in rdx: never below mmap_min_addr, never a
     * non-canonical address. Returns the two jumps taken when it refuses. Clobbers rax.
     */
    static int[] kernelRefuses(X86Encoder e) {
        X86Reg src = X86Reg.RDX;
        e.aluRI(AluOp.CMP, true, src, (int) NativeForm.ProbeRead.MMAP_MIN_ADDR);  /* cmp rdx, mmap_min_addr */
        int low = e.jccForward32(Cond.B);                                         /* jb .erange */
        e.movRR(true, X86Reg.RAX, src);                                           /* mov rax, rdx */
        e.shiftImm(Shift.SAR, true, X86Reg.RAX, 47);                              /* sar rax, 47 (0 or -1 when canonical) */
        e.aluRI(AluOp.ADD, true, X86Reg.RAX, 1);                                  /* add rax, 1 (1 or 0) */
        e.aluRI(AluOp.CMP, true, X86Reg.RAX, 1);                                  /* cmp rax, 1 */
        int wild = e.jccForward32(Cond.A);                                        /* ja .erange */
        return new int[] {low, wild};
    }

    /** Moves the copy on by {@code width} bytes. */
    private static void step(X86Encoder e, int width) {
        e.aluRI(AluOp.ADD, true, X86Reg.R8, width);                               /* add r8, width */
        e.aluRI(AluOp.ADD, true, X86Reg.R9, width);                               /* add r9, width */
        e.aluRI(AluOp.SUB, true, X86Reg.R10, width);                              /* sub r10, width */
    }

    /** rsi bytes at rdi set to 0 (DF is clear at a call, SysV). Clobbers rax, rcx, rdi. */
    static void zeroFill(X86Encoder e) {
        e.movRR(true, X86Reg.RCX, X86Reg.RSI);                                    /* mov rcx, rsi */
        e.aluRR(AluOp.XOR, false, X86Reg.RAX, X86Reg.RAX);                        /* xor eax, eax */
        e.buffer().emit8(0xf3); e.buffer().emit8(0xaa);                           /* rep stosb */
    }

    static void syscall(X86Encoder e) {
        e.buffer().emit8(0x0f); e.buffer().emit8(0x05);                           /* syscall */
    }
}
