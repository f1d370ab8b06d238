package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.HelperBinding;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.Shift;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.runtime.LookupInlining;

import java.util.ArrayList;
import java.util.List;

/**
 * The parts {@link InlineHashUpdate} and {@link InlineHashDelete} share: bucket and free-list locks
 * ({@link LookupInlining.HashWrites}: 4-byte words taken with {@code xchg} of 1, which on a word that
 * only ever holds 0 or 1 is the Java side's compare-and-swap; released with a store of 0, a release on
 * x86), the chain walk under the bucket lock, and the fallback to the helper.
 *
 * <p>Registers: r10 holds the index base, r11d the key's hash, eax the slot; rdi and r8 are scratch.
 * rsi (key), rdx (value) and rcx (flags) are left as the program set them until the call is past its
 * last fallback, and rdi is reloaded with the map handle before the helper is called (r1 is that
 * constant at these call sites), so the helper sees the program's arguments.
 */
final class HashWriteCode {
    /** Rounds of {@code pause} on a busy lock before the helper (which waits in Java) takes over. */
    static final int SPINS = 1 << 12;

    static final X86Reg INDEX = RegMap.AUX, HASH = RegMap.AUX2, SLOT = X86Reg.RAX, T = X86Reg.RDI, T2 = X86Reg.R8;

    final X86Encoder e;
    final LookupInlining.HashBuckets h;
    final LookupInlining.HashWrites w;
    /** Forward jumps to the helper call (nothing held there). */
    final List<Integer> toCall = new ArrayList<>();
    /** Forward jumps past the call (r0 set). */
    final List<Integer> toDone = new ArrayList<>();

    HashWriteCode(X86Encoder e, LookupInlining.HashBuckets h) {
        this.e = e;
        this.h = h;
        this.w = h.writes();
    }

    /**
     * Maps whose writes the JIT runs natively: keys the inline compare handles, values it copies (a
     * per-CPU map's values hold no {@code bpf_spin_lock}, and its zeroing loop needs {@code cpus * stride}
     * to fit an imm32).
     */
    static boolean fits(LookupInlining.HashBuckets h, int maxValueSize) {
        return h.writes() != null && InlineHashLookup.fits(h) && h.writes().valueSize() <= maxValueSize
                && (h.cpus() == 1 || (h.writes().spinLockOffset() < 0 && (long) h.cpus() * h.stride() <= Integer.MAX_VALUE));
    }

    /** r11d = the hash of the key at {@code key}; r10 = the index base. Clobbers eax and {@code scratch}. */
    void hash(X86Reg key, X86Reg scratch) {
        InlineHashLookup.hashKey(e, key, h.keySize(), scratch);
        e.movRR(false, HASH, X86Reg.RAX);                                      /* mov r11d, eax */
        e.movabs(INDEX, h.indexBase());                                        /* movabs r10, index */
    }

    /** dst = &heads[hash & mask] (the bucket's lock word is at dst + locksOffset). */
    void bucketHead(X86Reg dst) {
        e.movRR(false, dst, HASH);                                             /* mov dst32, r11d */
        e.aluRI(AluOp.AND, false, dst, h.buckets() - 1);                       /* and dst32, mask */
        e.shiftImm(Shift.SHL, true, dst, 2);                                   /* shl dst, 2 */
        e.aluRR(AluOp.ADD, true, dst, INDEX);                                  /* add dst, r10 */
    }

    /** dst = index + 4 * slot (eax): the slot's word in the next/hashes arrays is at dst + their offset. */
    void slotWord(X86Reg dst) {
        e.movRR(false, dst, SLOT);                                             /* mov dst32, eax */
        e.shiftImm(Shift.SHL, true, dst, 2);                                   /* shl dst, 2 */
        e.aluRR(AluOp.ADD, true, dst, INDEX);                                  /* add dst, r10 */
    }

    /**
     * Takes the lock word at [base + disp] (base is rdi) spinning at most {@link #SPINS} rounds; when it
     * stays busy, runs {@code release} (locks already held) and jumps to the helper. Clobbers eax, r8.
     */
    void lock(int disp, Runnable release) { lock(T, disp, X86Reg.RAX, release); }

    /** {@link #lock(int, Runnable)} on the word at [base + disp], counting the spins in {@code counter}. Clobbers counter, r8. */
    void lock(X86Reg base, int disp, X86Reg counter, Runnable release) {
        Mem word = Mem.of(base, disp);
        e.movImm32(counter, SPINS);                                            /* mov counter, SPINS */
        int retry = e.position();                                              /* .retry: */
        e.movImm32(T2, 1);                                                     /* mov r8d, 1 */
        e.xchg(false, word, T2);                                               /* xchg [word], r8d */
        e.testRR(false, T2, T2);                                               /* test r8d, r8d */
        int taken = e.jccForward32(Cond.E);                                    /* je .taken (it was free) */
        int wait = e.position();                                               /* .wait: */
        e.pause();                                                             /* pause */
        e.aluRI(AluOp.SUB, false, counter, 1);                                 /* sub counter, 1 */
        int busy = e.jccForward32(Cond.E);                                     /* je .busy */
        e.aluMI(AluOp.CMP, false, word, 0);                                    /* cmp dword [word], 0 */
        e.jccRel32(Cond.NE, wait);                                             /* jne .wait */
        e.jmpTo(retry);                                                        /* jmp .retry */
        e.bind32(busy);                                                        /* .busy: */
        release.run();
        toCall.add(e.jmpForward32());                                          /* jmp .call */
        e.bind32(taken);                                                       /* .taken: */
    }

    /**
     * Takes the word at [base + disp] however long it stays busy: only for the free list's lock, a leaf
     * that no holder keeps across a wait, where giving up would leak a slot taken for an insert. Clobbers r8.
     */
    void lockLeaf(X86Reg base, int disp) {
        Mem word = Mem.of(base, disp);
        int retry = e.position();                                              /* .retry: */
        e.movImm32(T2, 1);                                                     /* mov r8d, 1 */
        e.xchg(false, word, T2);                                               /* xchg [word], r8d */
        e.testRR(false, T2, T2);                                               /* test r8d, r8d */
        int taken = e.jccForward32(Cond.E);                                    /* je .taken */
        int wait = e.position();                                               /* .wait: */
        e.pause();                                                             /* pause */
        e.aluMI(AluOp.CMP, false, word, 0);                                    /* cmp dword [word], 0 */
        e.jccRel32(Cond.NE, wait);                                             /* jne .wait */
        e.jmpTo(retry);                                                        /* jmp .retry */
        e.bind32(taken);                                                       /* .taken: */
    }

    /** Takes the bucket's lock (nothing else held). Clobbers eax, rdi, r8. */
    void lockBucket() {
        bucketHead(T);
        lock(w.locksOffset(), () -> { });
    }

    /** Releases the bucket's lock. Clobbers rdi. */
    void unlockBucket() {
        bucketHead(T);
        e.storeImm(4, Mem.of(T, w.locksOffset()), 0);                          /* mov dword [rdi + locks], 0 */
    }

    /** Takes the free list's lock (the bucket's held: released on the way to the helper). Leaves rdi = pool. Clobbers eax, r8. */
    void lockPool() {
        e.movabs(T, w.pool());                                                 /* movabs rdi, pool */
        lock(0, () -> {
            unlockBucket();
            e.movabs(T, w.pool());                                             /* movabs rdi, pool */
        });
    }

    /** Releases the free list's lock. Clobbers rdi. */
    void unlockPool() {
        e.movabs(T, w.pool());                                                 /* movabs rdi, pool */
        e.storeImm(4, Mem.of(T, 0), 0);                                        /* mov dword [rdi], 0 */
    }

    /**
     * Walks the bucket's chain under its lock (no reader's restart needed: the chain is stable) from
     * the head at [rdi]; {@code prev}, when not null, keeps the address of the word that links the
     * current slot. Falls through with eax = the key's slot, or jumps to the returned label when absent.
     */
    int walk(X86Reg key, X86Reg prev) {
        if (prev != null) e.movRR(true, prev, T);                              /* mov prev, rdi (&head) */
        e.load(false, SLOT, Mem.of(T, 0));                                     /* mov eax, [rdi] */
        int walk = e.position();                                               /* .walk: */
        e.testRR(false, SLOT, SLOT);                                           /* test eax, eax */
        int absent = e.jccForward32(Cond.S);                                   /* js .absent (the marker) */
        slotWord(T);                                                           /* rdi = index + 4 * slot */
        e.aluRM(AluOp.CMP, false, HASH, Mem.of(T, h.hashesOffset()));          /* cmp r11d, hashes[slot] */
        int[] offsets = InlineHashLookup.chunks(h.keySize());
        int[] next = new int[1 + offsets.length];
        next[0] = e.jccForward32(Cond.NE);                                     /* jne .next */
        keyAddress(T);                                                         /* rdi = index + slot * key_size */
        boolean wide = h.keySize() >= 8;
        for (int i = 0; i < offsets.length; i++) {
            e.load(wide, T2, Mem.of(T, h.keysOffset() + offsets[i]));          /* mov r8, [rdi + keys + off] */
            e.aluRM(AluOp.CMP, wide, T2, Mem.of(key, offsets[i]));             /* cmp r8, [key + off] */
            next[i + 1] = e.jccForward32(Cond.NE);                             /* jne .next */
        }
        int found = e.jmpForward32();                                          /* jmp .found */
        for (int j : next) e.bind32(j);                                        /* .next: */
        slotWord(T);                                                           /* rdi = index + 4 * slot */
        if (prev != null) e.lea(prev, Mem.of(T, h.nextOffset()));              /* lea prev, next[slot] */
        e.load(false, SLOT, Mem.of(T, h.nextOffset()));                        /* mov eax, next[slot] */
        e.jmpTo(walk);                                                         /* jmp .walk */
        e.bind32(found);                                                       /* .found: */
        return absent;
    }

    /** dst = index + slot * key_size (the slot's key is at dst + keysOffset). */
    void keyAddress(X86Reg dst) {
        e.movRR(false, dst, SLOT);                                             /* mov dst32, eax */
        e.imulRRI(true, dst, dst, h.keySize());                                /* imul dst, dst, key_size */
        e.aluRR(AluOp.ADD, true, dst, INDEX);                                  /* add dst, r10 */
    }

    /** rdi = the slot's value: values + slot * stride. Clobbers r8. */
    void valueAddress() {
        e.movRR(false, T, SLOT);                                               /* mov edi, eax */
        e.imulRRI(true, T, T, h.stride());                                     /* imul rdi, rdi, stride */
        e.movabs(T2, h.valuesBase());                                          /* movabs r8, values */
        e.aluRR(AluOp.ADD, true, T, T2);                                       /* add rdi, r8 */
    }

    /**
     * rdi = the value of slot eax that a program's update writes: the slot's own, or in a per-CPU map
     * the current CPU's ({@code sched_getcpu} as {@code Cpus.current}, the CPU a per-CPU lookup uses:
     * a libc call, so the live registers are saved around it, eight pushes keeping rsp 16-byte aligned).
     * Clobbers r8.
     */
    void updatedValueAddress() {
        if (h.cpus() == 1) {
            valueAddress();
            return;
        }
        if (h.currentCpu() == 0) {
            e.aluRR(AluOp.XOR, false, T2, T2);                                 /* xor r8d, r8d (cpu 0) */
        } else {
            X86Reg[] live = {RegMap.BUDGET, SLOT, X86Reg.RSI, X86Reg.RDX, X86Reg.RCX, INDEX, HASH, HASH};
            for (X86Reg r : live) e.push(r);                                   /* push r9, rax, rsi, rdx, rcx, r10, r11, r11 */
            NativeFormEmitter.currentCpu(e, h.currentCpu(), h.cpus());         /* eax = the cpu */
            e.movRR(false, T2, X86Reg.RAX);                                    /* mov r8d, eax */
            for (int i = live.length - 1; i >= 0; i--) e.pop(live[i]);         /* pop r11, r11, r10, rcx, rdx, rsi, rax, r9 */
        }
        e.movRR(false, T, SLOT);                                               /* mov edi, eax */
        e.imulRRI(true, T, T, h.cpus());                                       /* imul rdi, rdi, cpus */
        e.aluRR(AluOp.ADD, true, T, T2);                                       /* add rdi, r8 */
        e.imulRRI(true, T, T, h.stride());                                     /* imul rdi, rdi, stride */
        e.movabs(T2, h.valuesBase());                                          /* movabs r8, values */
        e.aluRR(AluOp.ADD, true, T, T2);                                       /* add rdi, r8 */
    }

    /** A new per-CPU element's values: all {@code cpus * stride} bytes of slot eax zeroed (pcpu_init_value). Clobbers rdi, r8. */
    void zeroAllCpus() {
        e.movRR(false, T, SLOT);                                               /* mov edi, eax */
        e.imulRRI(true, T, T, h.cpus() * h.stride());                          /* imul rdi, rdi, cpus * stride */
        e.movabs(T2, h.valuesBase());                                          /* movabs r8, values */
        e.aluRR(AluOp.ADD, true, T, T2);                                       /* add rdi, r8 */
        e.movImm32(T2, h.cpus() * h.stride() / 8);                             /* mov r8d, qwords (stride is a multiple of 8) */
        int loop = e.position();                                               /* .zero: */
        e.storeImm(8, Mem.of(T, 0), 0);                                        /* mov qword [rdi], 0 */
        e.aluRI(AluOp.ADD, true, T, 8);                                        /* add rdi, 8 */
        e.aluRI(AluOp.SUB, false, T2, 1);                                      /* sub r8d, 1 */
        e.jccRel32(Cond.NE, loop);                                             /* jne .zero */
    }

    /** r0 = value; jmp .done. */
    void answer(int value) {
        if (value == 0) e.aluRR(AluOp.XOR, false, X86Reg.RAX, X86Reg.RAX);     /* xor eax, eax */
        else e.movImmSx(X86Reg.RAX, value);                                    /* mov rax, value */
        toDone.add(e.jmpForward32());                                          /* jmp .done */
    }

    /**
     * The helper call for every fallback (rdi reloaded with the map handle {@code r1}), then .done.
     */
    void callAndJoin(JitContext c, int pc, HelperBinding b, long r1) {
        for (int j : toCall) e.bind32(j);                                      /* .call: */
        e.movabs(X86Reg.RDI, r1);                                              /* movabs rdi, map handle (r1 as the program set it) */
        CallEmitter.call(c, pc, b);
        for (int j : toDone) e.bind32(j);                                      /* .done: */
    }
}
