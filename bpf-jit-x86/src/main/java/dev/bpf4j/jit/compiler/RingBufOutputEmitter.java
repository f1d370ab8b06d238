package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.Shift;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.maps.Errno;
import dev.bpf4j.maps.MapFlags;
import dev.bpf4j.runtime.NativeForm.RingBufOutput;

/**
 * {@code bpf_ringbuf_output} as native code ({@link RingBufOutput}): {@code long f(void *ring, void *data,
 * u64 size, u64 flags)}, r1 being the ring's block (the call site puts it there, {@link InlineRingBufOutput}).
 * The same steps as {@code RingBufMap.output} and the kernel's {@code __bpf_ringbuf_reserve} /
 * {@code bpf_ringbuf_commit}, on the same words, so Java producers, this code and the Java consumer share
 * one ring:
 *
 * <pre>
 *   flags &amp; ~(BPF_RB_NO_WAKEUP | BPF_RB_FORCE_WAKEUP): -EINVAL
 *   size &gt; RINGBUF_MAX_RECORD_SZ, or len = round_up(size + BPF_RINGBUF_HDR_SZ, 8) &gt; mask + 1: -EAGAIN
 *   cons = consumer_pos                       (read before the lock, as the Java producer)
 *   spin_lock(producer lock)                  (lock cmpxchg 0 -&gt; 1; pause while taken)
 *   prod = producer_pos; prod + len - cons &gt; mask: unlock, -EAGAIN
 *   hdr = data + (prod &amp; mask); hdr-&gt;len = size | BPF_RINGBUF_BUSY_BIT; hdr-&gt;pg_off = (hdr - ring) &gt;&gt; 12
 *   producer_pos = prod + len                 (a plain store: release on x86, as smp_store_release)
 *   spin_unlock                               (a plain store: release on x86)
 *   copy size bytes from data to hdr + 8      (rep movsb; into the copy-area past the end when it wraps)
 *   wrapped: copy the part past the end to the start of the data area
 *   hdr-&gt;pg_off again; xchg hdr-&gt;len, size   (clears BUSY: commit)
 *   0
 * </pre>
 * It notifies no Java monitor (the consumer's poll looks again every millisecond).
 */
final class RingBufOutputEmitter {
    private RingBufOutputEmitter() {}

    /** {@code RINGBUF_MAX_RECORD_SZ} ({@code UINT_MAX / 4}). */
    static final int MAX_RECORD = 0x3fffffff;
    static final int BUSY_BIT = 1 << 31;

    static void body(X86Encoder e) {
        X86Reg ring = X86Reg.RDI, src = X86Reg.RSI, size = X86Reg.RDX, flags = X86Reg.RCX;
        X86Reg len = X86Reg.R8, mask = X86Reg.R9, recOff = X86Reg.R10, hdr = X86Reg.R11;
        e.testRI(true, flags, (int) ~(MapFlags.BPF_RB_NO_WAKEUP | MapFlags.BPF_RB_FORCE_WAKEUP)); /* test rcx, ~3 */
        int badFlags = e.jccForward32(Cond.NE);                                   /* jne .einval */
        e.aluRI(AluOp.CMP, true, size, MAX_RECORD);                               /* cmp rdx, RINGBUF_MAX_RECORD_SZ */
        int tooLarge = e.jccForward32(Cond.A);                                    /* ja .eagain */
        e.lea(len, Mem.of(size, 8 + 7));                                          /* lea r8, [rdx + 15] */
        e.aluRI(AluOp.AND, true, len, -8);                                        /* and r8, -8 (len, header included) */
        e.load(true, mask, Mem.of(ring, RingBufOutput.MASK));                     /* mov r9, [rdi + MASK] */
        e.lea(X86Reg.RAX, Mem.of(mask, 1));                                       /* lea rax, [r9 + 1] (capacity) */
        e.aluRR(AluOp.CMP, true, len, X86Reg.RAX);                                /* cmp r8, rax */
        int neverFits = e.jccForward32(Cond.A);                                   /* ja .eagain */
        e.load(true, hdr, Mem.of(ring, RingBufOutput.CONSUMER_POS));              /* mov r11, [rdi] (cons) */

        int retry = e.position();                                                 /* .lock: */
        e.aluRR(AluOp.XOR, false, X86Reg.RAX, X86Reg.RAX);                        /* xor eax, eax */
        e.movImm32(recOff, 1);                                                    /* mov r10d, 1 */
        e.lockCmpxchg(false, Mem.of(ring, RingBufOutput.PRODUCER_LOCK), recOff);  /* lock cmpxchg [rdi + LOCK], r10d */
        int locked = e.jccForward8(Cond.E);                                       /* je .locked */
        int spin = e.position();                                                  /* .spin: */
        e.buffer().emit8(0xf3); e.buffer().emit8(0x90);                           /* pause */
        e.aluMI(AluOp.CMP, false, Mem.of(ring, RingBufOutput.PRODUCER_LOCK), 0);  /* cmp dword [rdi + LOCK], 0 */
        e.jccRel8(Cond.NE, spin);                                                 /* jne .spin */
        e.jmpRel8(retry);                                                         /* jmp .lock */
        e.bind(locked);                                                           /* .locked: */

        e.load(true, X86Reg.RAX, Mem.of(ring, RingBufOutput.PRODUCER_POS));       /* mov rax, [rdi + PRODUCER_POS] (prod) */
        e.lea(recOff, Mem.of(X86Reg.RAX, 0));                                     /* lea r10, [rax] */
        e.aluRR(AluOp.ADD, true, recOff, len);                                    /* add r10, r8 (new prod) */
        e.aluRR(AluOp.SUB, true, recOff, hdr);                                    /* sub r10, r11 (- cons) */
        e.aluRR(AluOp.CMP, true, recOff, mask);                                   /* cmp r10, r9 */
        int full = e.jccForward32(Cond.A);                                        /* ja .full */
        e.movRR(true, recOff, X86Reg.RAX);                                        /* mov r10, rax */
        e.aluRR(AluOp.AND, true, recOff, mask);                                   /* and r10, r9 (record offset) */
        e.movRR(true, hdr, ring);                                                 /* mov r11, rdi */
        e.aluRR(AluOp.ADD, true, hdr, recOff);                                    /* add r11, r10 */
        e.aluRI(AluOp.ADD, true, hdr, RingBufOutput.DATA);                        /* add r11, DATA (the header) */
        e.movRR(false, flags, size);                                              /* mov ecx, edx */
        e.aluRI(AluOp.OR, false, flags, BUSY_BIT);                                /* or ecx, BPF_RINGBUF_BUSY_BIT */
        e.store(4, Mem.of(hdr, 0), flags);                                        /* mov [r11], ecx (len | BUSY) */
        pageOffset(e, hdr, ring);
        e.aluRR(AluOp.ADD, true, X86Reg.RAX, len);                                /* add rax, r8 (new prod) */
        e.store(8, Mem.of(ring, RingBufOutput.PRODUCER_POS), X86Reg.RAX);         /* mov [rdi + PRODUCER_POS], rax (smp_store_release: x86 stores are ordered) */
        e.storeImm(4, Mem.of(ring, RingBufOutput.PRODUCER_LOCK), 0);              /* mov dword [rdi + LOCK], 0 (unlock) */

        e.movRR(true, X86Reg.RAX, ring);                                          /* mov rax, rdi (the ring, kept) */
        e.lea(X86Reg.RDI, Mem.of(hdr, 8));                                        /* lea rdi, [r11 + 8] (sample) */
        e.movRR(true, X86Reg.RCX, size);                                          /* mov rcx, rdx */
        repMovsb(e);                                                              /* rep movsb (data -> sample) */
        e.aluRR(AluOp.ADD, true, recOff, len);                                    /* add r10, r8 (record end offset) */
        e.lea(X86Reg.RCX, Mem.of(mask, 1));                                       /* lea rcx, [r9 + 1] (capacity) */
        e.aluRR(AluOp.SUB, true, recOff, X86Reg.RCX);                             /* sub r10, rcx (bytes past the end) */
        int inside = e.jccForward8(Cond.LE);                                      /* jle .commit */
        e.lea(X86Reg.RDI, Mem.of(X86Reg.RAX, RingBufOutput.DATA));                /* lea rdi, [rax + DATA] */
        e.lea(X86Reg.RSI, Mem.of(X86Reg.RDI, 0));                                 /* lea rsi, [rdi] */
        e.aluRR(AluOp.ADD, true, X86Reg.RSI, X86Reg.RCX);                         /* add rsi, rcx (the copy-area) */
        e.movRR(true, X86Reg.RCX, recOff);                                        /* mov rcx, r10 */
        repMovsb(e);                                                              /* rep movsb (wrapped tail -> data start) */
        e.bind(inside);                                                           /* .commit: */
        pageOffset(e, hdr, X86Reg.RAX);
        e.movRR(false, X86Reg.RCX, size);                                         /* mov ecx, edx (len without BUSY) */
        e.xchg(false, Mem.of(hdr, 0), X86Reg.RCX);                                /* xchg [r11], ecx (commit) */
        e.aluRR(AluOp.XOR, false, X86Reg.RAX, X86Reg.RAX);                        /* xor eax, eax */
        int done = e.jmpForward32();                                              /* jmp .done */

        e.bind32(full);                                                           /* .full: */
        e.storeImm(4, Mem.of(ring, RingBufOutput.PRODUCER_LOCK), 0);              /* mov dword [rdi + LOCK], 0 (unlock) */
        e.bind32(tooLarge);                                                       /* .eagain: */
        e.bind32(neverFits);
        e.movImmSx(X86Reg.RAX, -Errno.EAGAIN);                                    /* mov rax, -EAGAIN */
        int again = e.jmpForward32();                                             /* jmp .done */
        e.bind32(badFlags);                                                       /* .einval: */
        e.movImmSx(X86Reg.RAX, -Errno.EINVAL);                                    /* mov rax, -EINVAL */
        e.bind32(done);                                                           /* .done: */
        e.bind32(again);
    }

    /** hdr->pg_off = (hdr - ring) >> 12 (pages from the block's start, as {@code bpf_ringbuf_rec_pg_off}). Clobbers rcx. */
    private static void pageOffset(X86Encoder e, X86Reg hdr, X86Reg ring) {
        e.movRR(true, X86Reg.RCX, hdr);                                           /* mov rcx, r11 */
        e.aluRR(AluOp.SUB, true, X86Reg.RCX, ring);                               /* sub rcx, ring */
        e.shiftImm(Shift.SHR, true, X86Reg.RCX, 12);                              /* shr rcx, 12 */
        e.store(4, Mem.of(hdr, 4), X86Reg.RCX);                                   /* mov [r11 + 4], ecx */
    }

    private static void repMovsb(X86Encoder e) {
        e.buffer().emit8(0xf3); e.buffer().emit8(0xa4);                           /* rep movsb (DF clear at a call, SysV) */
    }
}
