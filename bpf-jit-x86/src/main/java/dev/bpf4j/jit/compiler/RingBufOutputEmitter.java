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
 * The reservation is {@link RingBufReserveEmitter#reserve}, shared with native {@code bpf_ringbuf_reserve}.
 * It notifies no Java monitor (the consumer's poll looks again every millisecond).
 */
final class RingBufOutputEmitter {
    private RingBufOutputEmitter() {}

    static void body(X86Encoder e) {
        X86Reg ring = X86Reg.RDI, src = X86Reg.RSI, size = X86Reg.RDX, flags = X86Reg.RCX;
        X86Reg len = X86Reg.R8, mask = X86Reg.R9, recOff = X86Reg.R10, hdr = X86Reg.R11;
        e.testRI(true, flags, (int) ~(MapFlags.BPF_RB_NO_WAKEUP | MapFlags.BPF_RB_FORCE_WAKEUP)); /* test rcx, ~3 */
        int badFlags = e.jccForward32(Cond.NE);                                   /* jne .einval */
        int[] noRoom = RingBufReserveEmitter.reserve(e);                          /* (reserve: r11 header, r10 offset, r8 len, r9 mask) */
        e.storeImm(4, Mem.of(X86Reg.RAX, RingBufOutput.DATA), 0);                 /* mov dword [rax + DATA], 0 (no pending entry: committed below) */

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

        for (int j : noRoom) e.bind32(j);                                         /* .eagain: */
        e.movImmSx(X86Reg.RAX, -Errno.EAGAIN);                                    /* mov rax, -EAGAIN */
        int again = e.jmpForward32();                                             /* jmp .done */
        e.bind32(badFlags);                                                       /* .einval: */
        e.movImmSx(X86Reg.RAX, -Errno.EINVAL);                                    /* mov rax, -EINVAL */
        e.bind32(done);                                                           /* .done: */
        e.bind32(again);
    }

    /** hdr->pg_off = (hdr - ring) >> 12 (pages from the block's start, as {@code bpf_ringbuf_rec_pg_off}). Clobbers rcx. */
    static void pageOffset(X86Encoder e, X86Reg hdr, X86Reg ring) {
        e.movRR(true, X86Reg.RCX, hdr);                                           /* mov rcx, r11 */
        e.aluRR(AluOp.SUB, true, X86Reg.RCX, ring);                               /* sub rcx, ring */
        e.shiftImm(Shift.SHR, true, X86Reg.RCX, 12);                              /* shr rcx, 12 */
        e.store(4, Mem.of(hdr, 4), X86Reg.RCX);                                   /* mov [r11 + 4], ecx */
    }

    static void repMovsb(X86Encoder e) {
        e.buffer().emit8(0xf3); e.buffer().emit8(0xa4);                           /* rep movsb (DF clear at a call, SysV) */
    }
}
