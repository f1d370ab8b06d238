package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.Shift;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.maps.RingBufMap;
import dev.bpf4j.runtime.NativeForm.RingBufOutput;

/**
 * {@code bpf_ringbuf_submit} / {@code _discard} as native code ({@code NativeForm.RingBufCommit}): {@code u64
 * f(void *sample, u64 flags, void *ring)}, the call site ({@link InlineRingBufCommit}) having chosen the ring
 * whose data area holds the header. The kernel's {@code bpf_ringbuf_commit} trusts the header before the
 * sample; a program here may have written it (the whole data area is its region, and loads may skip the
 * verifier), so this code, as {@code RingBufMap.commit}, believes the ring's reservation table instead (a
 * u32 per 8-byte slot after the copy-area, {@code size | BUSY} while reserved) and writes the header from it.
 * A sample that is not pending answers 1 with rdi and rsi untouched, and the call site calls the Java body,
 * which refuses the pointer with the body's error.
 *
 * <pre>
 *   hdr = sample - 8; off = hdr - data        off &gt; mask or off &amp; 7: 1
 *   entry = data + 2 * (mask + 1) + off / 2   len = *entry; BUSY clear: 1
 *   lock cmpxchg *entry, len -&gt; 0             (claims it: of two commits one wins; lost: 1)
 *   off + round_up(size + 8, 8) &gt; mask + 1: copy the part past the end from the copy-area to the data start
 *   hdr-&gt;pg_off = (hdr - ring) &gt;&gt; 12; xchg hdr-&gt;len, size [| DISCARD]   (clears BUSY: commit)
 *   0
 * </pre>
 * Flags are not checked (the kernel's and the body's are not); no Java consumer is woken (its poll looks
 * again every millisecond, as for native {@code bpf_ringbuf_output}).
 */
final class RingBufCommitEmitter {
    private RingBufCommitEmitter() {}

    static void body(X86Encoder e, boolean discard) {
        X86Reg ring = X86Reg.RDX, off = X86Reg.R8, mask = X86Reg.R9, entry = X86Reg.R10, hdr = X86Reg.R11, size = X86Reg.RCX;
        e.lea(hdr, Mem.of(X86Reg.RDI, -RingBufMap.HDR_SZ));                       /* lea r11, [rdi - 8] (header) */
        e.movRR(true, off, hdr);                                                  /* mov r8, r11 */
        e.aluRR(AluOp.SUB, true, off, ring);                                      /* sub r8, rdx */
        e.aluRI(AluOp.SUB, true, off, RingBufOutput.DATA);                        /* sub r8, DATA (offset in the data area) */
        e.load(true, mask, Mem.of(ring, RingBufOutput.MASK));                     /* mov r9, [rdx + MASK] */
        e.aluRR(AluOp.CMP, true, off, mask);                                      /* cmp r8, r9 */
        int outside = e.jccForward32(Cond.A);                                     /* ja .refuse (unsigned: below the data too) */
        e.testRI(false, off, 7);                                                  /* test r8d, 7 */
        int unaligned = e.jccForward32(Cond.NE);                                  /* jne .refuse */
        e.lea(entry, Mem.of(mask, 1));                                            /* lea r10, [r9 + 1] (capacity) */
        e.aluRR(AluOp.ADD, true, entry, entry);                                   /* add r10, r10 (data + copy-area) */
        e.aluRR(AluOp.ADD, true, entry, ring);                                    /* add r10, rdx */
        e.movRR(true, X86Reg.RAX, off);                                           /* mov rax, r8 */
        e.shiftImm(Shift.SHR, true, X86Reg.RAX, 1);                               /* shr rax, 1 (u32 per 8 bytes) */
        e.aluRR(AluOp.ADD, true, entry, X86Reg.RAX);                              /* add r10, rax (entry - DATA) */
        e.load(false, X86Reg.RAX, Mem.of(entry, RingBufOutput.DATA));             /* mov eax, [r10 + DATA] (size | BUSY) */
        e.testRR(false, X86Reg.RAX, X86Reg.RAX);                                  /* test eax, eax */
        int notBusy = e.jccForward32(Cond.NS);                                    /* jns .refuse (BUSY is the sign bit) */
        e.aluRR(AluOp.XOR, false, size, size);                                    /* xor ecx, ecx */
        e.lockCmpxchg(false, Mem.of(entry, RingBufOutput.DATA), size);            /* lock cmpxchg [r10 + DATA], ecx (claim) */
        int lost = e.jccForward32(Cond.NE);                                       /* jne .refuse (another commit won) */
        e.movRR(false, size, X86Reg.RAX);                                         /* mov ecx, eax */
        e.aluRI(AluOp.AND, false, size, ~RingBufMap.BUSY_BIT);                    /* and ecx, ~BUSY (size) */

        e.lea(X86Reg.RAX, Mem.of(size, RingBufMap.HDR_SZ + 7));                   /* lea rax, [rcx + 15] */
        e.aluRI(AluOp.AND, true, X86Reg.RAX, -8);                                 /* and rax, -8 (record length) */
        e.aluRR(AluOp.ADD, true, off, X86Reg.RAX);                                /* add r8, rax (record end offset) */
        e.lea(mask, Mem.of(mask, 1));                                             /* lea r9, [r9 + 1] (capacity) */
        e.aluRR(AluOp.SUB, true, off, mask);                                      /* sub r8, r9 (bytes past the end) */
        int inside = e.jccForward8(Cond.LE);                                      /* jle .commit */
        e.movRR(true, X86Reg.RAX, X86Reg.RDI);                                    /* mov rax, rdi (kept for the caller) */
        e.movRR(true, entry, X86Reg.RSI);                                         /* mov r10, rsi (kept for the caller) */
        e.push(size);                                                             /* push rcx (size) */
        e.lea(X86Reg.RDI, Mem.of(ring, RingBufOutput.DATA));                      /* lea rdi, [rdx + DATA] (data start) */
        e.movRR(true, X86Reg.RSI, X86Reg.RDI);                                    /* mov rsi, rdi */
        e.aluRR(AluOp.ADD, true, X86Reg.RSI, mask);                               /* add rsi, r9 (the copy-area) */
        e.movRR(true, X86Reg.RCX, off);                                           /* mov rcx, r8 */
        RingBufOutputEmitter.repMovsb(e);                                         /* rep movsb (wrapped tail -> data start) */
        e.pop(size);                                                              /* pop rcx */
        e.movRR(true, X86Reg.RDI, X86Reg.RAX);                                    /* mov rdi, rax */
        e.movRR(true, X86Reg.RSI, entry);                                         /* mov rsi, r10 */
        e.bind(inside);                                                           /* .commit: */
        e.movRR(true, X86Reg.RAX, hdr);                                           /* mov rax, r11 */
        e.aluRR(AluOp.SUB, true, X86Reg.RAX, ring);                               /* sub rax, rdx */
        e.shiftImm(Shift.SHR, true, X86Reg.RAX, 12);                              /* shr rax, 12 */
        e.store(4, Mem.of(hdr, 4), X86Reg.RAX);                                   /* mov [r11 + 4], eax (pg_off, rewritten) */
        if (discard) e.aluRI(AluOp.OR, false, size, RingBufMap.DISCARD_BIT);      /* or ecx, BPF_RINGBUF_DISCARD_BIT */
        e.xchg(false, Mem.of(hdr, 0), size);                                      /* xchg [r11], ecx (clears BUSY: commit) */
        e.aluRR(AluOp.XOR, false, X86Reg.RAX, X86Reg.RAX);                        /* xor eax, eax */
        int done = e.jmpForward8();                                               /* jmp .done */
        for (int j : new int[] {outside, unaligned, notBusy, lost}) e.bind32(j);  /* .refuse: */
        e.movImm32(X86Reg.RAX, 1);                                                /* mov eax, 1 (the body decides) */
        e.bind(done);                                                             /* .done: */
    }
}
