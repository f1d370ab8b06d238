package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.Shift;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.maps.Errno;
import dev.bpf4j.runtime.LookupInlining;

/**
 * {@code prealloc_lru_pop} for a full LRU map, as native code: the CLOCK sweep of {@code
 * dev.bpf4j.maps.LruClock#acquire} step for step, on the same off-heap clock ({@link
 * LookupInlining.HashWrites#lruClock}), so that the same operations evict the same element on
 * either path, and Java and native evictions interleave under one clock lock.
 *
 * <pre>
 *   (no lock held) push rcx; push r11            ; flags and hash: ecx counts steps, r11 names a bucket
 *   take the clock lock (busy: pop, .call)
 *   mov ecx, 2 * max_entries + 1
 * .sweep: test ecx, ecx; je .exhausted; sub ecx, 1
 *   eax = hand; hand = eax + 1 == max_entries ? 0 : eax + 1
 *   linked[eax] == 0: jmp .sweep
 *   ref[eax] != 0: ref[eax] = 0; jmp .sweep       ; second chance
 *   r11 = &amp;heads[hashes[eax] &amp; mask]; take its lock (busy: unlock clock, pop, .call)
 *   still linked, still in that bucket, found in its chain: unlink it, unlock, jmp .got
 *   else unlock; jmp .sweep
 * .exhausted: pop the free list (empty: unlock clock, pop, r0 = -ENOMEM)
 * .got: ref[eax] = 0; unlock the clock; lock add in_flight, 1; pop r11; pop rcx
 * </pre>
 */
final class LruEvictCode {
    private LruEvictCode() {}

    /** The clock block's words ({@link LookupInlining.HashWrites#lruClock}). */
    static final int LOCK = 0, HAND = 4, IN_FLIGHT = 8, REFS = 16;

    private static final X86Reg STEPS = X86Reg.RCX, VICTIM = RegMap.AUX2;

    /**
     * Leaves eax = a slot taken for the insert (counted in flight, reference byte clear), no lock held and
     * rcx, r11 as they were; or answers {@code -ENOMEM}, or goes to the helper (a lock stayed busy).
     * Nothing may be held on entry. Clobbers rdi, r8.
     */
    static void acquire(HashWriteCode code) {
        X86Encoder e = code.e;
        LookupInlining.HashBuckets h = code.h;
        LookupInlining.HashWrites w = code.w;
        X86Reg t = HashWriteCode.T, t2 = HashWriteCode.T2, index = HashWriteCode.INDEX, slot = HashWriteCode.SLOT;
        Runnable restore = () -> {
            e.pop(VICTIM);                                                     /* pop r11 */
            e.pop(STEPS);                                                      /* pop rcx */
        };
        Runnable unlockClockAndRestore = () -> {
            unlockClock(e, w);
            restore.run();
        };
        e.push(STEPS);                                                         /* push rcx (flags) */
        e.push(VICTIM);                                                        /* push r11 (hash; two pushes keep rsp aligned) */
        e.movabs(t, w.lruClock());                                             /* movabs rdi, clock */
        code.lock(t, LOCK, slot, restore);
        e.movImm32(STEPS, 2 * h.maxEntries() + 1);                             /* mov ecx, 2 * max_entries + 1 */
        int sweep = e.position();                                              /* .sweep: */
        e.testRR(false, STEPS, STEPS);                                         /* test ecx, ecx */
        int exhausted = e.jccForward32(Cond.E);                                /* je .exhausted */
        e.aluRI(AluOp.SUB, false, STEPS, 1);                                   /* sub ecx, 1 */
        e.movabs(t, w.lruClock());                                             /* movabs rdi, clock */
        e.load(false, slot, Mem.of(t, HAND));                                  /* mov eax, [rdi + hand] (v) */
        e.movRR(false, t2, slot);                                              /* mov r8d, eax */
        e.aluRI(AluOp.ADD, false, t2, 1);                                      /* add r8d, 1 */
        e.aluRI(AluOp.CMP, false, t2, h.maxEntries());                         /* cmp r8d, max_entries */
        int inRange = e.jccForward32(Cond.NE);                                 /* jne .advance */
        e.aluRR(AluOp.XOR, false, t2, t2);                                     /* xor r8d, r8d (wrap) */
        e.bind32(inRange);                                                     /* .advance: */
        e.store(4, Mem.of(t, HAND), t2);                                       /* mov [rdi + hand], r8d */
        linkedByte(code, t2);                                                  /* r8d = linked[v] */
        e.testRR(false, t2, t2);                                               /* test r8d, r8d */
        e.jccRel32(Cond.E, sweep);                                             /* je .sweep (a free slot) */
        e.movRR(false, t2, slot);                                              /* mov r8d, eax */
        e.aluRR(AluOp.ADD, true, t2, t);                                       /* add r8, rdi (clock + v) */
        e.loadZx8(t, Mem.of(t2, REFS));                                        /* movzx edi, byte ref[v] */
        e.testRR(false, t, t);                                                 /* test edi, edi */
        int victim = e.jccForward32(Cond.E);                                   /* je .victim (not used since the last sweep) */
        e.storeImm(1, Mem.of(t2, REFS), 0);                                    /* mov byte ref[v], 0 (second chance) */
        e.jmpTo(sweep);                                                        /* jmp .sweep */

        e.bind32(victim);                                                      /* .victim: */
        bucketOfSlot(code, VICTIM);                                            /* r11 = &heads[hashes[v] & mask] */
        code.lock(VICTIM, w.locksOffset(), t, unlockClockAndRestore);
        // Re-check under the bucket lock: v may have been deleted, or reused in another bucket, meanwhile.
        linkedByte(code, t2);                                                  /* r8d = linked[v] */
        e.testRR(false, t2, t2);                                               /* test r8d, r8d */
        int gone = e.jccForward32(Cond.E);                                     /* je .skip */
        bucketOfSlot(code, t2);                                                /* r8 = &heads[hashes[v] & mask] */
        e.aluRR(AluOp.CMP, true, t2, VICTIM);                                  /* cmp r8, r11 */
        int moved = e.jccForward32(Cond.NE);                                   /* jne .skip */
        e.movRR(true, t, VICTIM);                                              /* mov rdi, r11 (the link into the current slot) */
        int find = e.position();                                               /* .find: */
        e.load(false, t2, Mem.of(t, 0));                                       /* mov r8d, [rdi] */
        e.testRR(false, t2, t2);                                               /* test r8d, r8d */
        int notInChain = e.jccForward32(Cond.S);                               /* js .skip (the chain's end) */
        e.aluRR(AluOp.CMP, false, t2, slot);                                   /* cmp r8d, eax */
        int found = e.jccForward32(Cond.E);                                    /* je .unlink */
        e.shiftImm(Shift.SHL, true, t2, 2);                                    /* shl r8, 2 */
        e.aluRR(AluOp.ADD, true, t2, index);                                   /* add r8, r10 */
        e.lea(t, Mem.of(t2, h.nextOffset()));                                  /* lea rdi, next[r8d] */
        e.jmpTo(find);                                                         /* jmp .find */
        e.bind32(found);                                                       /* .unlink: as HashIndex.unlink */
        code.slotWord(t2);                                                     /* r8 = index + 4 * v */
        e.load(false, t2, Mem.of(t2, h.nextOffset()));                         /* mov r8d, next[v] (v keeps it, for readers on v) */
        e.store(4, Mem.of(t, 0), t2);                                          /* mov [rdi], r8d (a release store) */
        e.movRR(false, t2, slot);                                              /* mov r8d, eax */
        e.aluRR(AluOp.ADD, true, t2, index);                                   /* add r8, r10 */
        e.storeImm(1, Mem.of(t2, w.linkedOffset()), 0);                        /* mov byte linked[v], 0 */
        e.storeImm(4, Mem.of(VICTIM, w.locksOffset()), 0);                     /* mov dword [r11 + locks], 0 (unlock its bucket) */
        int evicted = e.jmpForward32();                                        /* jmp .got */
        e.bind32(gone);                                                        /* .skip: */
        e.bind32(moved);
        e.bind32(notInChain);
        e.storeImm(4, Mem.of(VICTIM, w.locksOffset()), 0);                     /* mov dword [r11 + locks], 0 */
        e.jmpTo(sweep);                                                        /* jmp .sweep */

        e.bind32(exhausted);                                                   /* .exhausted: a concurrent delete may have freed one */
        e.movabs(t, w.pool());                                                 /* movabs rdi, pool */
        code.lock(t, 0, slot, unlockClockAndRestore);
        e.load(false, t2, Mem.of(t, 4));                                       /* mov r8d, [rdi + 4] (free slots) */
        e.testRR(false, t2, t2);                                               /* test r8d, r8d */
        int none = e.jccForward32(Cond.E);                                     /* je .none */
        e.aluRI(AluOp.SUB, false, t2, 1);                                      /* sub r8d, 1 */
        e.store(4, Mem.of(t, 4), t2);                                          /* mov [rdi + 4], r8d */
        e.shiftImm(Shift.SHL, true, t2, 2);                                    /* shl r8, 2 */
        e.aluRR(AluOp.ADD, true, t2, t);                                       /* add r8, rdi */
        e.load(false, slot, Mem.of(t2, 8));                                    /* mov eax, [r8 + 8] (the slot on top) */
        e.storeImm(4, Mem.of(t, 0), 0);                                        /* mov dword [rdi], 0 (unlock the free list) */
        int popped = e.jmpForward32();                                         /* jmp .got */
        e.bind32(none);                                                        /* .none: every slot is in an insert in progress */
        e.storeImm(4, Mem.of(t, 0), 0);                                        /* mov dword [rdi], 0 (unlock the free list) */
        unlockClockAndRestore.run();
        code.answer(-Errno.ENOMEM);

        e.bind32(evicted);                                                     /* .got: */
        e.bind32(popped);
        e.movabs(t, w.lruClock());                                             /* movabs rdi, clock */
        e.movRR(false, t2, slot);                                              /* mov r8d, eax */
        e.aluRR(AluOp.ADD, true, t2, t);                                       /* add r8, rdi */
        e.storeImm(1, Mem.of(t2, REFS), 0);                                    /* mov byte ref[slot], 0 */
        e.storeImm(4, Mem.of(t, LOCK), 0);                                     /* mov dword [rdi], 0 (unlock the clock) */
        inFlight(e, w, 1);
        restore.run();
    }

    /** Ends an insert that did not link its slot (the key turned up, or a lock stayed busy): the slot at {@code fresh} back on the free list, no longer in flight. Clobbers eax, rdi, r8. */
    static void release(HashWriteCode code, Mem fresh) {
        X86Encoder e = code.e;
        X86Reg t = HashWriteCode.T, t2 = HashWriteCode.T2;
        inFlight(e, code.w, -1);
        e.load(false, HashWriteCode.SLOT, fresh);                              /* mov eax, [fresh] */
        e.movabs(t, code.w.pool());                                            /* movabs rdi, pool */
        code.lockLeaf(t, 0);
        e.load(false, t2, Mem.of(t, 4));                                       /* mov r8d, [rdi + 4] (free slots) */
        e.aluMI(AluOp.ADD, false, Mem.of(t, 4), 1);                            /* add dword [rdi + 4], 1 */
        e.shiftImm(Shift.SHL, true, t2, 2);                                    /* shl r8, 2 */
        e.aluRR(AluOp.ADD, true, t2, t);                                       /* add r8, rdi */
        e.store(4, Mem.of(t2, 8), HashWriteCode.SLOT);                         /* mov [r8 + 8], eax (push the slot) */
        e.storeImm(4, Mem.of(t, 0), 0);                                        /* mov dword [rdi], 0 (unlock the free list) */
    }

    /** {@code lock add dword in_flight, delta}. Clobbers rdi, r8. */
    static void inFlight(X86Encoder e, LookupInlining.HashWrites w, int delta) {
        e.movabs(HashWriteCode.T, w.lruClock());                               /* movabs rdi, clock */
        e.movImm32(HashWriteCode.T2, delta);                                   /* mov r8d, delta */
        e.aluMR(AluOp.ADD, false, Mem.of(HashWriteCode.T, IN_FLIGHT), HashWriteCode.T2, true); /* lock add [rdi + in_flight], r8d */
    }

    private static void unlockClock(X86Encoder e, LookupInlining.HashWrites w) {
        e.movabs(HashWriteCode.T, w.lruClock());                               /* movabs rdi, clock */
        e.storeImm(4, Mem.of(HashWriteCode.T, LOCK), 0);                       /* mov dword [rdi], 0 (unlock the clock) */
    }

    /** dst = linked[eax] (zero-extended). */
    private static void linkedByte(HashWriteCode code, X86Reg dst) {
        code.e.movRR(false, dst, HashWriteCode.SLOT);                          /* mov dst32, eax */
        code.e.aluRR(AluOp.ADD, true, dst, HashWriteCode.INDEX);               /* add dst, r10 */
        code.e.loadZx8(dst, Mem.of(dst, code.w.linkedOffset()));               /* movzx dst, byte linked[eax] */
    }

    /** dst = &amp;heads[hashes[eax] &amp; mask] (its lock word at dst + locksOffset). */
    private static void bucketOfSlot(HashWriteCode code, X86Reg dst) {
        X86Encoder e = code.e;
        code.slotWord(dst);                                                    /* dst = index + 4 * eax */
        e.load(false, dst, Mem.of(dst, code.h.hashesOffset()));                /* mov dst32, hashes[eax] */
        e.aluRI(AluOp.AND, false, dst, code.h.buckets() - 1);                  /* and dst32, mask */
        e.shiftImm(Shift.SHL, true, dst, 2);                                   /* shl dst, 2 */
        e.aluRR(AluOp.ADD, true, dst, HashWriteCode.INDEX);                    /* add dst, r10 */
    }
}
