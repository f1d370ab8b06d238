package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.HelperBinding;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.maps.Errno;
import dev.bpf4j.maps.MapFlags;
import dev.bpf4j.runtime.LookupInlining;

/**
 * {@code bpf_map_update_elem} on a HASH, LRU_HASH, PERCPU_HASH or LRU_PERCPU_HASH map whose handle is a constant at the call site, run
 * as native code ({@code htab_map_update_elem}, {@code htab_lru_map_update_elem}) under the bucket
 * lock Java takes too ({@link HashWriteCode}), with no call into Java (≈70 ns through JNI):
 * <ul>
 * <li>flags: unknown ones answer {@code -EINVAL} (a plain hash allows {@code BPF_F_LOCK} besides
 *     {@code BPF_ANY}/{@code BPF_NOEXIST}/{@code BPF_EXIST}, and answers {@code -EINVAL} for it when the
 *     value has no lock; LRU and per-CPU maps none);
 * <li>key present: {@code -EEXIST} for {@code BPF_NOEXIST}, else the value copied in place (its
 *     {@code bpf_spin_lock} word left alone; in a per-CPU map the current CPU's value, the CPU a
 *     per-CPU lookup uses) and, in an LRU map, its reference byte set;
 * <li>key absent: {@code -ENOENT} for {@code BPF_EXIST}, else a slot popped from the free list, its
 *     value (per-CPU: every CPU's zeroed, then the current CPU's written) and key written and the
 *     slot linked at the head of the bucket; an empty free list is
 *     {@code -E2BIG} in a plain hash, and in an LRU map an eviction ({@link LruEvictCode}, the Java
 *     helper's CLOCK sweep on the same off-heap clock) followed by the insert into the evicted slot.
 * </ul>
 * {@code BPF_F_LOCK} on a present element's value with a lock copies it under that lock; an absent one
 * is inserted as without the flag (htab_map_update_elem).
 * The helper is called for the rest, as before: a lock still busy after
 * {@link HashWriteCode#SPINS} rounds, key or value outside the current frame, a closed map, keys the inline compare does not handle, values past {@link #MAX_VALUE_SIZE} bytes.
 */
final class InlineHashUpdate {
    private InlineHashUpdate() {}

    static final int MAX_VALUE_SIZE = 256;

    /** {@code -Dbpf4j.jit.nativeHelpers=false} calls the Java helper (read at each compile). */
    static boolean enabled() { return Switches.on("bpf4j.jit.nativeHelpers") && Switches.on("bpf4j.jit.nativeHashWrites"); }

    static boolean emit(JitContext c, int pc, LookupInlining.Target t, HelperBinding b, long r1) {
        if (!(t instanceof LookupInlining.HashBuckets h) || !HashWriteCode.fits(h, MAX_VALUE_SIZE) || !enabled()) return false;
        X86Encoder e = c.e;
        HashWriteCode code = new HashWriteCode(e, h);
        LookupInlining.HashWrites w = h.writes();
        boolean lru = h.refBits() != 0, plain = !lru && h.cpus() == 1;
        X86Reg key = RegMap.x86(2), value = RegMap.x86(3), flags = RegMap.x86(4);
        for (int j : InlineLookup.guards(e, h)) code.toCall.add(j);
        for (int j : InlineLookup.inFrame(e, value, w.valueSize())) code.toCall.add(j);
        checkFlags(code, flags, plain, w.spinLockOffset() >= 0);
        code.hash(key, X86Reg.R8);
        code.lockBucket();
        code.bucketHead(HashWriteCode.T);
        int absent = code.walk(key, null);
        boolean lockFlag = plain && w.spinLockOffset() >= 0;                   // flags may carry BPF_F_LOCK here
        // present (eax = slot)
        int[] exists = ifFlags(e, flags, MapFlags.BPF_NOEXIST, lockFlag);      /* .eexist */
        code.updatedValueAddress();                                            /* rdi = the value (this CPU's, per-CPU) */
        if (lockFlag) copyLocked(code, flags, value);
        copyValue(e, value, w);
        if (lru) setRef(e, h, 1);                                              /* bpf_lru_node_set_ref */
        code.unlockBucket();
        code.answer(0);
        for (int j : exists) e.bind32(j);                                      /* .eexist: */
        code.unlockBucket();
        code.answer(-Errno.EEXIST);
        // absent (BPF_F_LOCK or not: a new element's lock word is 0, nobody can hold it)
        e.bind32(absent);                                                      /* .absent: */
        int[] missing = ifFlags(e, flags, MapFlags.BPF_EXIST, lockFlag);       /* .enoent */
        code.lockPool();                                                       /* rdi = pool */
        e.load(false, HashWriteCode.T2, Mem.of(HashWriteCode.T, 4));           /* mov r8d, [rdi + 4] (free slots) */
        e.testRR(false, HashWriteCode.T2, HashWriteCode.T2);                   /* test r8d, r8d */
        int empty = e.jccForward32(Cond.E);                                    /* je .full */
        e.aluRI(AluOp.SUB, false, HashWriteCode.T2, 1);                        /* sub r8d, 1 */
        e.store(4, Mem.of(HashWriteCode.T, 4), HashWriteCode.T2);              /* mov [rdi + 4], r8d */
        e.shiftImm(dev.bpf4j.jit.x86.Shift.SHL, true, HashWriteCode.T2, 2);    /* shl r8, 2 */
        e.aluRR(AluOp.ADD, true, HashWriteCode.T2, HashWriteCode.T);           /* add r8, rdi */
        e.load(false, HashWriteCode.SLOT, Mem.of(HashWriteCode.T2, 8));        /* mov eax, [r8 + 8] (the slot on top) */
        code.unlockPool();
        link(code, key, value, lru);
        code.answer(0);
        e.bind32(empty);                                                       /* .full: */
        code.unlockPool();
        code.unlockBucket();
        if (lru) insertEvicting(code, key, value, flags);
        else code.answer(-Errno.E2BIG);                                        /* every preallocated element in use */
        for (int j : missing) e.bind32(j);                                     /* .enoent: */
        code.unlockBucket();
        code.answer(-Errno.ENOENT);
        code.callAndJoin(c, pc, b, r1);
        return true;
    }

    /** Jumps (returned) taken when the flags are {@code f}, or {@code f | BPF_F_LOCK} when {@code lockFlag}. */
    private static int[] ifFlags(X86Encoder e, X86Reg flags, long f, boolean lockFlag) {
        e.aluRI(AluOp.CMP, false, flags, (int) f);                             /* cmp ecx, f */
        int plainJump = e.jccForward32(Cond.E);                                /* je */
        if (!lockFlag) return new int[] {plainJump};
        e.aluRI(AluOp.CMP, false, flags, (int) (f | MapFlags.BPF_F_LOCK));     /* cmp ecx, f | BPF_F_LOCK */
        return new int[] {plainJump, e.jccForward32(Cond.E)};                  /* je */
    }

    /**
     * {@code BPF_F_LOCK} on a present element (value at rdi, bucket held): copy_map_value_locked, the copy
     * made under the value's {@code bpf_spin_lock} (0 free, 1 held: the protocol of the Java {@code
     * SpinLock} and of programs' bpf_spin_lock), taken with {@code xchg} and a bounded spin (busy: the
     * bucket released, to the helper, which waits in Java); answers 0. Without the flag, falls through.
     */
    private static void copyLocked(HashWriteCode code, X86Reg flags, X86Reg value) {
        X86Encoder e = code.e;
        LookupInlining.HashWrites w = code.w;
        e.testRI(false, flags, (int) MapFlags.BPF_F_LOCK);                     /* test ecx, BPF_F_LOCK */
        int unlocked = e.jccForward32(Cond.E);                                 /* je .copy (no flag) */
        code.lock(HashWriteCode.T, w.spinLockOffset(), HashWriteCode.SLOT, code::unlockBucket); /* the value's lock (eax counts) */
        copyValue(e, value, w);
        e.storeImm(4, Mem.of(HashWriteCode.T, w.spinLockOffset()), 0);        /* mov dword [rdi + lock], 0 (bpf_spin_unlock) */
        code.unlockBucket();
        code.answer(0);
        e.bind32(unlocked);                                                    /* .copy: */
    }

    /** Where the slot taken for an insert into a full LRU map waits while the bucket is locked again (a per-run word). */
    private static final Mem FRESH = JitContext.env(EnvLayout.SCRATCH);

    /**
     * A full LRU map, nothing held: {@code LruClock.acquire} ({@link LruEvictCode}) takes a slot by
     * evicting, then the insert runs again under the bucket lock as {@code HashTabMap.insertLru} does
     * (the key may have turned up meanwhile: then the slot goes back to the free list).
     */
    private static void insertEvicting(HashWriteCode code, X86Reg key, X86Reg value, X86Reg flags) {
        X86Encoder e = code.e;
        LruEvictCode.acquire(code);
        e.store(8, FRESH, HashWriteCode.SLOT);                                 /* mov [r12 + SCRATCH], rax (the fresh slot) */
        code.bucketHead(HashWriteCode.T);
        code.lock(code.w.locksOffset(), () -> LruEvictCode.release(code, FRESH));
        code.bucketHead(HashWriteCode.T);
        int absent = code.walk(key, null);
        // present meanwhile (eax = slot)
        e.aluRI(AluOp.CMP, false, flags, (int) MapFlags.BPF_NOEXIST);          /* cmp ecx, BPF_NOEXIST */
        int exists = e.jccForward32(Cond.E);                                   /* je .eexist */
        code.updatedValueAddress();                                            /* rdi = the value (this CPU's, per-CPU) */
        copyValue(e, value, code.w);
        setRef(e, code.h, 1);                                                  /* bpf_lru_node_set_ref */
        LruEvictCode.release(code, FRESH);
        code.unlockBucket();
        code.answer(0);
        e.bind32(exists);                                                      /* .eexist: */
        LruEvictCode.release(code, FRESH);
        code.unlockBucket();
        code.answer(-Errno.EEXIST);
        e.bind32(absent);                                                      /* .absent: */
        e.aluRI(AluOp.CMP, false, flags, (int) MapFlags.BPF_EXIST);            /* cmp ecx, BPF_EXIST */
        int missing = e.jccForward32(Cond.E);                                  /* je .enoent */
        e.load(false, HashWriteCode.SLOT, FRESH);                              /* mov eax, [r12 + SCRATCH] */
        link(code, key, value, true);                                          /* (unlocks the bucket) */
        LruEvictCode.inFlight(e, code.w, -1);                                  /* linked: no longer in flight */
        code.answer(0);
        e.bind32(missing);                                                     /* .enoent: */
        LruEvictCode.release(code, FRESH);
        code.unlockBucket();
        code.answer(-Errno.ENOENT);
    }

    /**
     * htab_map_update_elem's flag checks, before any lock: leaves ecx 0, 1 or 2 (BPF_ANY, BPF_NOEXIST,
     * BPF_EXIST), or in a plain hash (not LRU, not per-CPU) whose value has a lock one of those with
     * BPF_F_LOCK, or answers -EINVAL (unknown flags; BPF_F_LOCK elsewhere). Clobbers r8.
     */
    private static void checkFlags(HashWriteCode code, X86Reg flags, boolean plain, boolean valueLock) {
        X86Encoder e = code.e;
        X86Reg t = HashWriteCode.T2;
        e.movRR(true, t, flags);                                               /* mov r8, rcx */
        if (plain) e.aluRI(AluOp.AND, true, t, (int) ~MapFlags.BPF_F_LOCK);     /* and r8, ~BPF_F_LOCK */
        e.aluRI(AluOp.CMP, true, t, (int) MapFlags.BPF_EXIST);                 /* cmp r8, BPF_EXIST */
        int unknown = e.jccForward32(Cond.A);                                  /* ja .einval */
        int lockFlag = -1;
        if (plain && !valueLock) {
            e.testRI(false, flags, (int) MapFlags.BPF_F_LOCK);                 /* test ecx, BPF_F_LOCK */
            lockFlag = e.jccForward32(Cond.NE);                                /* jnz .einval (BPF_F_LOCK without a bpf_spin_lock) */
        }
        int ok = e.jmpForward32();                                             /* jmp .ok */
        e.bind32(unknown);                                                     /* .einval: */
        if (lockFlag >= 0) e.bind32(lockFlag);
        code.answer(-Errno.EINVAL);
        e.bind32(ok);                                                          /* .ok: */
    }

    /** The fresh slot eax: reference byte cleared (LRU), value (lock word 0) and key written, hash, linked, then published at the bucket's head. */
    private static void link(HashWriteCode code, X86Reg key, X86Reg value, boolean lru) {
        X86Encoder e = code.e;
        LookupInlining.HashBuckets h = code.h;
        LookupInlining.HashWrites w = code.w;
        X86Reg t = HashWriteCode.T, t2 = HashWriteCode.T2;
        if (lru) setRef(e, h, 0);
        if (h.cpus() > 1) code.zeroAllCpus();                                  /* pcpu_init_value: the other CPUs' values are zeroes */
        code.updatedValueAddress();
        if (w.spinLockOffset() >= 0) e.storeImm(4, Mem.of(t, w.spinLockOffset()), 0); /* mov dword [rdi + lock], 0 (a new element's lock is free) */
        copyValue(e, value, w);
        code.keyAddress(t);
        copy(e, key, 0, t, h.keysOffset(), h.keySize());
        code.slotWord(t);
        e.store(4, Mem.of(t, h.hashesOffset()), HashWriteCode.HASH);           /* mov hashes[slot], r11d */
        code.bucketHead(t2);                                                   /* r8 = &heads[b] */
        e.load(false, HashWriteCode.HASH, Mem.of(t2, 0));                      /* mov r11d, [r8] (the old head) */
        e.store(4, Mem.of(t, h.nextOffset()), HashWriteCode.HASH);             /* mov next[slot], r11d */
        e.movRR(false, t, HashWriteCode.SLOT);                                 /* mov edi, eax */
        e.aluRR(AluOp.ADD, true, t, HashWriteCode.INDEX);                      /* add rdi, r10 */
        e.storeImm(1, Mem.of(t, w.linkedOffset()), 1);                         /* mov byte linked[slot], 1 */
        e.store(4, Mem.of(t2, 0), HashWriteCode.SLOT);                         /* mov [r8], eax (publish: x86 stores are releases) */
        e.storeImm(4, Mem.of(t2, w.locksOffset()), 0);                         /* mov dword [r8 + locks], 0 (unlock the bucket) */
    }

    /** The LRU reference byte of slot eax = {@code v}. Clobbers rdi. */
    private static void setRef(X86Encoder e, LookupInlining.HashBuckets h, int v) {
        e.movabs(HashWriteCode.T, h.refBits());                                /* movabs rdi, ref bytes */
        e.aluRR(AluOp.ADD, true, HashWriteCode.T, HashWriteCode.SLOT);         /* add rdi, rax (the slot, zero-extended) */
        e.storeImm(1, Mem.of(HashWriteCode.T, 0), v);                          /* mov byte [rdi], v */
    }

    /** The value at [rdx] into the value at [rdi], its lock word left alone. Clobbers r8. */
    private static void copyValue(X86Encoder e, X86Reg value, LookupInlining.HashWrites w) {
        int lock = w.spinLockOffset(), size = w.valueSize();
        if (lock < 0) {
            copy(e, value, 0, HashWriteCode.T, 0, size);
            return;
        }
        copy(e, value, 0, HashWriteCode.T, 0, lock);
        copy(e, value, lock + 4, HashWriteCode.T, lock + 4, size - lock - 4);
    }

    /** {@code size} bytes from [from + fromOff] to [to + toOff], the widest moves first, through r8. */
    static void copy(X86Encoder e, X86Reg from, int fromOff, X86Reg to, int toOff, int size) {
        int off = 0;
        for (int width = 8; width >= 1; width /= 2) {
            for (; size - off >= width; off += width) {
                MemoryEmitter.load(e, false, width, HashWriteCode.T2, Mem.of(from, fromOff + off)); /* mov r8, [from + off] (width bytes) */
                e.store(width, Mem.of(to, toOff + off), HashWriteCode.T2);                       /* mov [to + off], r8 */
            }
        }
    }
}
