package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.HelperBinding;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.Shift;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.maps.Errno;
import dev.bpf4j.runtime.LookupInlining;

/**
 * {@code bpf_map_delete_elem} on a hash map (HASH, LRU_HASH and their per-CPU kinds, whose values a delete leaves alone) whose handle is a constant at the call site, run
 * as native code ({@code htab_map_delete_elem}, {@code htab_lru_map_delete_elem}): under the bucket
 * lock ({@link HashWriteCode}) the key's slot is unlinked (the link into it replaced by its next link
 * with a release store; the slot keeps its own next link for a lock-free reader standing on it) and
 * pushed on the free list, whose lock is taken before the walk; an absent key is {@code -ENOENT}.
 * The helper is called where {@link InlineHashUpdate} calls it (key outside the frame, a closed map,
 * a lock still busy, keys the compare does not handle).
 *
 * <p>Registers: rcx holds the address of the link to the current slot; rdx is scratch (r3-r5 are
 * not arguments of the delete).
 */
final class InlineHashDelete {
    private InlineHashDelete() {}

    static boolean emit(JitContext c, int pc, LookupInlining.Target t, HelperBinding b, long r1) {
        if (!(t instanceof LookupInlining.HashBuckets h) || !HashWriteCode.fits(h, Integer.MAX_VALUE) || !InlineHashUpdate.enabled()) {
            return false;
        }
        X86Encoder e = c.e;
        HashWriteCode code = new HashWriteCode(e, h);
        LookupInlining.HashWrites w = h.writes();
        X86Reg key = RegMap.x86(2), prev = X86Reg.RCX;
        for (int j : InlineLookup.guards(e, h)) code.toCall.add(j);
        code.hash(key, X86Reg.RDX);
        code.lockBucket();
        code.lockPool();                                                       /* bucket, then free list: the Java side's order */
        code.bucketHead(HashWriteCode.T);
        int absent = code.walk(key, prev);
        // found (eax = slot): unlink, mark, push
        code.slotWord(HashWriteCode.T);                                        /* rdi = index + 4 * slot */
        e.load(false, X86Reg.RDX, Mem.of(HashWriteCode.T, h.nextOffset()));    /* mov edx, next[slot] */
        e.store(4, Mem.of(prev, 0), X86Reg.RDX);                               /* mov [rcx], edx (unlink: a release store) */
        e.movRR(false, HashWriteCode.T, HashWriteCode.SLOT);                   /* mov edi, eax */
        e.aluRR(AluOp.ADD, true, HashWriteCode.T, HashWriteCode.INDEX);        /* add rdi, r10 */
        e.storeImm(1, Mem.of(HashWriteCode.T, w.linkedOffset()), 0);           /* mov byte linked[slot], 0 */
        e.movabs(HashWriteCode.T, w.pool());                                   /* movabs rdi, pool */
        e.load(false, X86Reg.RDX, Mem.of(HashWriteCode.T, 4));                 /* mov edx, [rdi + 4] (free slots) */
        e.movRR(false, HashWriteCode.T2, X86Reg.RDX);                          /* mov r8d, edx */
        e.shiftImm(Shift.SHL, true, HashWriteCode.T2, 2);                      /* shl r8, 2 */
        e.aluRR(AluOp.ADD, true, HashWriteCode.T2, HashWriteCode.T);           /* add r8, rdi */
        e.store(4, Mem.of(HashWriteCode.T2, 8), HashWriteCode.SLOT);           /* mov [r8 + 8], eax (push the slot) */
        e.aluRI(AluOp.ADD, false, X86Reg.RDX, 1);                              /* add edx, 1 */
        e.store(4, Mem.of(HashWriteCode.T, 4), X86Reg.RDX);                    /* mov [rdi + 4], edx */
        code.unlockPool();
        code.unlockBucket();
        code.answer(0);
        e.bind32(absent);                                                      /* .absent: */
        code.unlockPool();
        code.unlockBucket();
        code.answer(-Errno.ENOENT);
        code.callAndJoin(c, pc, b, r1);
        return true;
    }
}
