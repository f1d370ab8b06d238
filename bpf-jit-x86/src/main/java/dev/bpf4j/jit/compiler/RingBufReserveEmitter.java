package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.Shift;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.runtime.NativeForm.RingBufOutput;

/**
 * {@code bpf_ringbuf_reserve} as native code ({@code NativeForm.RingBufReserve}): {@code void *f(void *ring,
 * u64 size, u64 flags)}, r1 being the ring's block ({@link InlineRingBuf} puts it there). The steps of
 * {@code RingBufMap.reserve} and the kernel's {@code __bpf_ringbuf_reserve}, on the same words:
 *
 * <pre>
 *   flags != 0: NULL                          (the body's check, made after it resolved the ring)
 *   size &gt; RINGBUF_MAX_RECORD_SZ, or len = round_up(size + 8, 8) &gt; mask + 1: NULL
 *   cons = consumer_pos                       (read before the lock, as the Java producer)
 *   spin_lock; prod = producer_pos; prod + len - cons &gt; mask: unlock, NULL
 *   hdr = data + (prod &amp; mask); hdr-&gt;len = size | BUSY; hdr-&gt;pg_off = (hdr - ring) &gt;&gt; 12
 *   producer_pos = prod + len; spin_unlock    (plain stores: release on x86)
 *   reservation table entry of hdr = size | BUSY   (what commit believes: {@link RingBufCommitEmitter})
 *   hdr + 8
 * </pre>
 */
final class RingBufReserveEmitter {
    private RingBufReserveEmitter() {}

    /** {@code RINGBUF_MAX_RECORD_SZ} ({@code UINT_MAX / 4}). */
    static final int MAX_RECORD = 0x3fffffff;
    static final int BUSY_BIT = 1 << 31;

    static void body(X86Encoder e) {
        e.testRR(true, X86Reg.RDX, X86Reg.RDX);                                   /* test rdx, rdx (flags) */
        int badFlags = e.jccForward32(Cond.NE);                                   /* jne .null */
        e.movRR(true, X86Reg.RDX, X86Reg.RSI);                                    /* mov rdx, rsi (size) */
        int[] noRoom = reserve(e);
        e.movRR(false, X86Reg.RCX, X86Reg.RDX);                                   /* mov ecx, edx */
        e.aluRI(AluOp.OR, false, X86Reg.RCX, BUSY_BIT);                           /* or ecx, BPF_RINGBUF_BUSY_BIT */
        e.store(4, Mem.of(X86Reg.RAX, RingBufOutput.DATA), X86Reg.RCX);           /* mov [rax + DATA], ecx (reservation table) */
        e.lea(X86Reg.RAX, Mem.of(X86Reg.R11, 8));                                 /* lea rax, [r11 + 8] (the sample) */
        int done = e.jmpForward32();                                              /* jmp .done */
        e.bind32(badFlags);                                                       /* .null: */
        for (int j : noRoom) e.bind32(j);
        e.aluRR(AluOp.XOR, false, X86Reg.RAX, X86Reg.RAX);                        /* xor eax, eax */
        e.bind32(done);                                                           /* .done: */
    }

    /**
     * Reserves a record for rdx bytes in the ring at rdi (both kept): falls through with r11 = its header,
     * r10 = its offset in the data area, r8 = its length (header included, 8-aligned), r9 = the mask and
     * rax + DATA = its reservation table entry (for the caller to set: reserve marks it, output clears it,
     * as Java's reserve then commit leave it); or
     * jumps to each of the returned forward jumps when it does not fit (the lock released). Clobbers rax, rcx.
     */
    static int[] reserve(X86Encoder e) {
        X86Reg ring = X86Reg.RDI, size = X86Reg.RDX, scratch = X86Reg.RCX;
        X86Reg len = X86Reg.R8, mask = X86Reg.R9, recOff = X86Reg.R10, hdr = X86Reg.R11;
        e.aluRI(AluOp.CMP, true, size, MAX_RECORD);                               /* cmp rdx, RINGBUF_MAX_RECORD_SZ */
        int tooLarge = e.jccForward32(Cond.A);                                    /* ja .noroom */
        e.lea(len, Mem.of(size, 8 + 7));                                          /* lea r8, [rdx + 15] */
        e.aluRI(AluOp.AND, true, len, -8);                                        /* and r8, -8 (len, header included) */
        e.load(true, mask, Mem.of(ring, RingBufOutput.MASK));                     /* mov r9, [rdi + MASK] */
        e.lea(X86Reg.RAX, Mem.of(mask, 1));                                       /* lea rax, [r9 + 1] (capacity) */
        e.aluRR(AluOp.CMP, true, len, X86Reg.RAX);                                /* cmp r8, rax */
        int neverFits = e.jccForward32(Cond.A);                                   /* ja .noroom */
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
        e.movRR(false, scratch, size);                                            /* mov ecx, edx */
        e.aluRI(AluOp.OR, false, scratch, BUSY_BIT);                              /* or ecx, BPF_RINGBUF_BUSY_BIT */
        e.store(4, Mem.of(hdr, 0), scratch);                                      /* mov [r11], ecx (len | BUSY) */
        RingBufOutputEmitter.pageOffset(e, hdr, ring);
        e.aluRR(AluOp.ADD, true, X86Reg.RAX, len);                                /* add rax, r8 (new prod) */
        e.store(8, Mem.of(ring, RingBufOutput.PRODUCER_POS), X86Reg.RAX);         /* mov [rdi + PRODUCER_POS], rax (smp_store_release: x86 stores are ordered) */
        e.storeImm(4, Mem.of(ring, RingBufOutput.PRODUCER_LOCK), 0);              /* mov dword [rdi + LOCK], 0 (unlock) */
        e.lea(X86Reg.RAX, Mem.of(mask, 1));                                       /* lea rax, [r9 + 1] (capacity) */
        e.aluRR(AluOp.ADD, true, X86Reg.RAX, X86Reg.RAX);                         /* add rax, rax (data + copy-area) */
        e.aluRR(AluOp.ADD, true, X86Reg.RAX, ring);                               /* add rax, rdi */
        e.movRR(true, scratch, recOff);                                           /* mov rcx, r10 */
        e.shiftImm(Shift.SHR, true, scratch, 1);                                  /* shr rcx, 1 (u32 per 8 bytes) */
        e.aluRR(AluOp.ADD, true, X86Reg.RAX, scratch);                            /* add rax, rcx (entry - DATA) */
        int reserved = e.jmpForward8();                                           /* jmp .reserved */
        e.bind32(full);                                                           /* .full: */
        e.storeImm(4, Mem.of(ring, RingBufOutput.PRODUCER_LOCK), 0);              /* mov dword [rdi + LOCK], 0 (unlock) */
        int fullOut = e.jmpForward32();                                           /* jmp .noroom */
        e.bind(reserved);                                                         /* .reserved: */
        return new int[] {tooLarge, neverFits, fullOut};
    }
}
