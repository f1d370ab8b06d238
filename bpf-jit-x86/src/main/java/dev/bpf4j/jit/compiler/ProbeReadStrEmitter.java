package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.maps.Errno;
import dev.bpf4j.runtime.NativeForm;

/**
 * The body of {@code bpf_probe_read_str}/{@code _user_str}/{@code _kernel_str} as native code
 * ({@link NativeForm.ProbeReadStr}): {@code long f(void *dst, u32 size, const void *src)}, called only where
 * dst lies in the caller's frame and does not overlap the source's {@code size} bytes ({@link InlineProbeRead}).
 * It reads as {@code ProbeMemory.readStr} does in PROCESS mode, with the same r0 and the same dst bytes:
 * a source whose {@code size} bytes the run may access ({@link ProbeReadEmitter#sourceAccessible}) is copied
 * directly up to the NUL (8 bytes at a time while none of them is 0, never past its size bytes); any other page by page through {@code process_vm_readv} into a
 * scratch buffer on this function's stack, from which only the bytes up to the NUL reach dst (the body's
 * scratch page: what follows the NUL in the source's page never shows). An unreadable page before the NUL
 * is {@code -EFAULT}, dst zero-filled.
 *
 * <pre>
 *   mov esi, esi; test rsi, rsi; je .zero   ; size 0: r0 = 0, dst untouched (even for _kernel_str)
 *   (_kernel_str: src below mmap_min_addr or not canonical: .erange)
 *   (src's size bytes in the BPF frame or a region: .direct)
 * .chunk:  c = min(size - n, to src + n's page end, SCRATCH); process_vm_readv(pid, {scratch, c}, {src + n, c})
 *          rax != c: .efault; copy scratch to dst + n up to the NUL (.found); n += c; n &lt; size: .chunk
 *          .truncated
 * .direct: copy src to dst up to the NUL (.found), size bytes at most
 * .truncated: dst[size - 1] = 0; rax = size
 * .found:  rax = bytes written, NUL included
 * .efault: dst zero-filled, rax = -EFAULT     .erange: dst zero-filled, rax = -ERANGE
 * </pre>
 */
final class ProbeReadStrEmitter {
    private ProbeReadStrEmitter() {}

    /** Bytes read per system call at most (a page crossing splits a chunk too); dst in a frame is never longer. */
    static final int SCRATCH = 512;

    /** The slow path's frame: the arguments, bytes done, the two iovecs, the scratch buffer. */
    private static final int DST = -8, SIZE = -16, SRC = -24, DONE = -32, REMOTE = -48, LOCAL = -64,
            BUF = LOCAL - SCRATCH, FRAME = -BUF;

    private static final int PAGE = 4096;

    static void body(X86Encoder e, NativeForm.ProbeReadStr f) {
        X86Reg dst = X86Reg.RDI, size = X86Reg.RSI, src = X86Reg.RDX, start = X86Reg.R8;
        e.movRR(false, size, size);                                               /* mov esi, esi (the u32 size) */
        e.aluRR(AluOp.XOR, false, X86Reg.RAX, X86Reg.RAX);                        /* xor eax, eax (r0 = 0 for size 0) */
        e.testRR(true, size, size);                                               /* test rsi, rsi */
        int empty = e.jccForward32(Cond.E);                                       /* je .done (size 0: nothing written) */
        int[] refused = f.kernel() ? ProbeReadEmitter.kernelRefuses(e) : new int[0];
        int[] direct = ProbeReadEmitter.sourceAccessible(e);

        // the source needs the kernel: page by page through the scratch buffer
        e.aluRI(AluOp.SUB, true, X86Reg.RSP, FRAME);                              /* sub rsp, FRAME */
        e.store(8, Mem.of(X86Reg.RBP, DST), dst);                                 /* mov [rbp - 8], rdi */
        e.store(8, Mem.of(X86Reg.RBP, SIZE), size);                               /* mov [rbp - 16], rsi */
        e.store(8, Mem.of(X86Reg.RBP, SRC), src);                                 /* mov [rbp - 24], rdx */
        e.storeImm(8, Mem.of(X86Reg.RBP, DONE), 0);                               /* mov qword [rbp - 32], 0 (n) */
        int chunk = e.position();                                                 /* .chunk: */
        e.load(true, src, Mem.of(X86Reg.RBP, SRC));                               /* mov rdx, [rbp - 24] */
        e.aluRM(AluOp.ADD, true, src, Mem.of(X86Reg.RBP, DONE));                  /* add rdx, [rbp - 32] (src + n) */
        e.movRR(false, X86Reg.RCX, src);                                          /* mov ecx, edx */
        e.aluRI(AluOp.AND, false, X86Reg.RCX, PAGE - 1);                          /* and ecx, 4095 */
        e.neg(true, X86Reg.RCX);                                                  /* neg rcx */
        e.aluRI(AluOp.ADD, true, X86Reg.RCX, PAGE);                               /* add rcx, 4096 (bytes to the page end) */
        e.load(true, X86Reg.RAX, Mem.of(X86Reg.RBP, SIZE));                       /* mov rax, [rbp - 16] */
        e.aluRM(AluOp.SUB, true, X86Reg.RAX, Mem.of(X86Reg.RBP, DONE));           /* sub rax, [rbp - 32] (size - n) */
        e.aluRR(AluOp.CMP, true, X86Reg.RCX, X86Reg.RAX);                         /* cmp rcx, rax */
        int pageFirst = e.jccForward8(Cond.BE);                                   /* jbe .capped */
        e.movRR(true, X86Reg.RCX, X86Reg.RAX);                                    /* mov rcx, rax */
        e.bind(pageFirst);                                                        /* .capped: */
        e.aluRI(AluOp.CMP, true, X86Reg.RCX, SCRATCH);                            /* cmp rcx, SCRATCH */
        int fits = e.jccForward8(Cond.BE);                                        /* jbe .read */
        e.movImm32(X86Reg.RCX, SCRATCH);                                          /* mov ecx, SCRATCH */
        e.bind(fits);                                                             /* .read: */
        e.lea(X86Reg.RAX, Mem.of(X86Reg.RBP, BUF));                               /* lea rax, [rbp + BUF] */
        e.store(8, Mem.of(X86Reg.RBP, LOCAL), X86Reg.RAX);                        /* mov [rbp - 64], rax (local.iov_base) */
        e.store(8, Mem.of(X86Reg.RBP, LOCAL + 8), X86Reg.RCX);                    /* mov [rbp - 56], rcx (local.iov_len) */
        e.store(8, Mem.of(X86Reg.RBP, REMOTE), src);                              /* mov [rbp - 48], rdx (remote.iov_base) */
        e.store(8, Mem.of(X86Reg.RBP, REMOTE + 8), X86Reg.RCX);                   /* mov [rbp - 40], rcx (remote.iov_len) */
        e.movImm32(X86Reg.RDI, f.pid());                                          /* mov edi, pid */
        e.lea(X86Reg.RSI, Mem.of(X86Reg.RBP, LOCAL));                             /* lea rsi, [rbp - 64] (local_iov) */
        e.movImm32(X86Reg.RDX, 1);                                                /* mov edx, 1 (liovcnt) */
        e.lea(X86Reg.R10, Mem.of(X86Reg.RBP, REMOTE));                            /* lea r10, [rbp - 48] (remote_iov) */
        e.movImm32(X86Reg.R8, 1);                                                 /* mov r8d, 1 (riovcnt) */
        e.aluRR(AluOp.XOR, false, X86Reg.R9, X86Reg.R9);                          /* xor r9d, r9d (flags) */
        e.movImm32(X86Reg.RAX, ProbeReadEmitter.SYS_PROCESS_VM_READV);            /* mov eax, __NR_process_vm_readv */
        ProbeReadEmitter.syscall(e);                                              /* syscall (clobbers rcx, r11) */
        e.aluRM(AluOp.CMP, true, X86Reg.RAX, Mem.of(X86Reg.RBP, LOCAL + 8));      /* cmp rax, [rbp - 56] */
        int fault = e.jccForward32(Cond.NE);                                      /* jne .efault (one page: all or nothing) */
        e.movRR(true, X86Reg.RCX, X86Reg.RAX);                                    /* mov rcx, rax (c) */
        e.lea(src, Mem.of(X86Reg.RBP, BUF));                                      /* lea rdx, [rbp + BUF] */
        e.load(true, start, Mem.of(X86Reg.RBP, DST));                             /* mov r8, [rbp - 8] */
        e.movRR(true, dst, start);                                                /* mov rdi, r8 */
        e.aluRM(AluOp.ADD, true, dst, Mem.of(X86Reg.RBP, DONE));                  /* add rdi, [rbp - 32] (dst + n) */
        e.aluMR(AluOp.ADD, true, Mem.of(X86Reg.RBP, DONE), X86Reg.RCX, false);    /* add [rbp - 32], rcx (n += c) */
        int foundInChunk = copyUntilNul(e);
        e.load(true, size, Mem.of(X86Reg.RBP, SIZE));                             /* mov rsi, [rbp - 16] */
        e.aluRM(AluOp.CMP, true, size, Mem.of(X86Reg.RBP, DONE));                 /* cmp rsi, [rbp - 32] */
        e.jccRel32(Cond.A, chunk);                                                /* ja .chunk (n < size) */
        int truncatedSlow = e.jmpForward32();                                     /* jmp .truncated */

        for (int j : direct) e.bind32(j);                                         /* .direct: */
        e.movRR(true, start, dst);                                                /* mov r8, rdi */
        e.movRR(true, X86Reg.RCX, size);                                          /* mov rcx, rsi */
        int foundDirect = copyUntilNul(e);

        e.bind32(truncatedSlow);                                                  /* .truncated: (no NUL in size bytes) */
        e.movRR(true, X86Reg.RAX, start);                                         /* mov rax, r8 */
        e.aluRR(AluOp.ADD, true, X86Reg.RAX, size);                               /* add rax, rsi */
        e.storeImm(1, Mem.of(X86Reg.RAX, -1), 0);                                 /* mov byte [rax - 1], 0 (dst[size - 1]) */
        e.movRR(true, X86Reg.RAX, size);                                          /* mov rax, rsi (r0 = size) */
        int truncated = e.jmpForward32();                                         /* jmp .done */

        e.bind32(foundInChunk);                                                   /* .found: (rdi just past the NUL) */
        e.bind32(foundDirect);
        e.movRR(true, X86Reg.RAX, dst);                                           /* mov rax, rdi */
        e.aluRR(AluOp.SUB, true, X86Reg.RAX, start);                              /* sub rax, r8 (length, NUL included) */
        int found = e.jmpForward32();                                             /* jmp .done */

        e.bind32(fault);                                                          /* .efault: */
        e.load(true, dst, Mem.of(X86Reg.RBP, DST));                               /* mov rdi, [rbp - 8] */
        e.load(true, size, Mem.of(X86Reg.RBP, SIZE));                             /* mov rsi, [rbp - 16] */
        ProbeReadEmitter.zeroFill(e);                                             /* (the body zero-fills all of dst) */
        e.movImmSx(X86Reg.RAX, -Errno.EFAULT);                                    /* mov rax, -EFAULT */
        int faulted = e.jmpForward32();                                           /* jmp .done */

        if (refused.length > 0) {
            for (int j : refused) e.bind32(j);                                    /* .erange: (rdi, rsi still the arguments) */
            ProbeReadEmitter.zeroFill(e);
            e.movImmSx(X86Reg.RAX, -Errno.ERANGE);                                /* mov rax, -ERANGE */
        }
        e.bind32(empty);                                                          /* .done: */
        e.bind32(truncated);
        e.bind32(found);
        e.bind32(faulted);
    }

    /** Every byte 0x01, every byte 0x80: {@code (x - ONES) & ~x & HIGHS} is non-zero when a byte of x is 0. */
    static final long ONES = 0x0101010101010101L, HIGHS = 0x8080808080808080L;

    /**
     * Copies bytes from rdx to rdi, rcx of them (at least 1), up to and including a NUL: returns the jump
     * taken after the NUL is written (rdi just past it); falls through when rcx bytes had none. Eight bytes
     * at a time while 8 are left and none of them is 0 (each word read before it is written; src never
     * overlaps dst here, and no byte past the rcx is read), then byte by byte. Clobbers rax, r9-r11.
     */
    private static int copyUntilNul(X86Encoder e) {
        X86Reg from = X86Reg.RDX, to = X86Reg.RDI, left = X86Reg.RCX, ones = X86Reg.R9, highs = X86Reg.R10, t = X86Reg.R11;
        e.movabs(ones, ONES);                                                     /* movabs r9, 0x0101010101010101 */
        e.movabs(highs, HIGHS);                                                   /* movabs r10, 0x8080808080808080 */
        int words = e.position();                                                 /* .w8: */
        e.aluRI(AluOp.CMP, true, left, 8);                                        /* cmp rcx, 8 */
        int few = e.jccForward8(Cond.B);                                          /* jb .bytes */
        e.load(true, X86Reg.RAX, Mem.of(from, 0));                                /* mov rax, [rdx] */
        e.movRR(true, t, X86Reg.RAX);                                             /* mov r11, rax */
        e.aluRI(AluOp.XOR, true, t, -1);                                          /* xor r11, -1 (~x) */
        e.aluRR(AluOp.SUB, true, X86Reg.RAX, ones);                               /* sub rax, r9 (x - ONES) */
        e.aluRR(AluOp.AND, true, X86Reg.RAX, t);                                  /* and rax, r11 */
        e.testRR(true, X86Reg.RAX, highs);                                        /* test rax, r10 */
        int hasNul = e.jccForward8(Cond.NE);                                      /* jne .bytes (a NUL in these 8) */
        e.load(true, X86Reg.RAX, Mem.of(from, 0));                                /* mov rax, [rdx] */
        e.store(8, Mem.of(to, 0), X86Reg.RAX);                                    /* mov [rdi], rax */
        e.aluRI(AluOp.ADD, true, from, 8);                                        /* add rdx, 8 */
        e.aluRI(AluOp.ADD, true, to, 8);                                          /* add rdi, 8 */
        e.aluRI(AluOp.SUB, true, left, 8);                                        /* sub rcx, 8 */
        e.jmpTo(words);                                                           /* jmp .w8 */
        e.bind(few);                                                              /* .bytes: */
        e.bind(hasNul);
        e.testRR(true, left, left);                                               /* test rcx, rcx */
        int exhausted = e.jccForward8(Cond.E);                                    /* je .none (all copied in words) */
        int loop = e.position();                                                  /* .byte: */
        e.loadZx8(X86Reg.RAX, Mem.of(from, 0));                                   /* movzx eax, byte [rdx] */
        e.store(1, Mem.of(to, 0), X86Reg.RAX);                                    /* mov [rdi], al */
        e.aluRI(AluOp.ADD, true, from, 1);                                        /* add rdx, 1 */
        e.aluRI(AluOp.ADD, true, to, 1);                                          /* add rdi, 1 */
        e.testRR(false, X86Reg.RAX, X86Reg.RAX);                                  /* test eax, eax */
        int nul = e.jccForward32(Cond.E);                                         /* je .found */
        e.aluRI(AluOp.SUB, true, left, 1);                                        /* sub rcx, 1 */
        e.jccRel32(Cond.NE, loop);                                                /* jne .byte */
        e.bind(exhausted);                                                        /* .none: */
        return nul;
    }
}
