package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.HelperBinding;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.runtime.LookupInlining;

import java.util.List;

/**
 * {@code bpf_spin_lock} and {@code bpf_spin_unlock} as native code at the call site, on the protocol of
 * the Java {@code SpinLock} (a 4-byte word, 0 free, 1 held; taken with {@code lock cmpxchg 0 -> 1},
 * released with {@code xchg} of 0), so the Java helper, {@code BPF_F_LOCK} updates and lookups from
 * Java, and this code exclude each other on one lock.
 *
 * <p>The helper accepts only a lock word in a writable region of the run (checked first, then alignment),
 * and only the lock word of a value of an open map programs may write; the code does the same tests
 * (the run's region table, {@link #notInRunRegions}), the map test against the maps the load had when it was compiled
 * ({@link LookupInlining#lockValues}) and calls the helper for every other address, which refuses it
 * (or accepts a map added later). It spins at most {@link #SPINS} rounds with {@code pause} (about a
 * millisecond), then calls the helper too, which waits in Java up to {@code SpinLock.TIMEOUT_NANOS}
 * and then ends the run with HELPER_FAILED naming program, pc and lock: a lock a program leaked never
 * hangs a run.
 *
 * <pre>
 *   test dil, 3; jnz .call
 *   for each lock array: cmp qword [open], 0; je .next; rax = rdi - base; jb .next; cmp rax, size; jae .next
 *                        rdx = rax mod stride; cmp rdx, lock_off; jne .call; jmp .ok
 *   jmp .call
 * .ok: no writable region of the run holds [rdi, rdi + 4): .call
 * .ok (lock): mov r11d, SPINS
 *   .retry: xor eax, eax; mov edx, 1; lock cmpxchg [rdi], edx; je .taken
 *   .wait: pause; sub r11d, 1; je .call; cmp dword [rdi], 0; jne .wait; jmp .retry
 * .ok (unlock): xor eax, eax; xchg [rdi], eax
 * .taken: xor eax, eax; jmp .done
 * .call: the helper call
 * .done:
 * </pre>
 * Registers: r1 (rdi) stays for the helper; rax, rdx, r10, r11 are free at a call, r9 (budget) is kept.
 */
final class InlineSpinLock {
    private InlineSpinLock() {}

    /** Rounds of {@code pause} before the helper takes over the wait. */
    static final int SPINS = 1 << 15;

    /** More lock arrays than this: the helper (keeps call sites small). */
    static final int MAX_ARRAYS = 8;

    /** {@code -Dbpf4j.jit.nativeHelpers=false} calls the Java helpers (read at each compile, for A/B timing and tests). */
    static boolean enabled() { return Switches.on("bpf4j.jit.nativeHelpers"); }

    /** Emits the native lock or unlock and returns true, or emits nothing and returns false (then the caller calls). */
    static boolean emit(JitContext c, int pc, HelperBinding b) {
        if (b.lookupInlining() == null || !enabled()) return false;
        List<LookupInlining.LockValues> arrays = b.lookupInlining().lockValues();
        if (arrays.isEmpty() || arrays.size() > MAX_ARRAYS) return false;
        X86Encoder e = c.e;
        X86Reg lock = RegMap.x86(1);
        int[] toCall = new int[4 + arrays.size()];
        int n = 0;
        e.testRI(false, lock, 3);                                              /* test edi, 3 */
        toCall[n++] = e.jccForward32(Cond.NE);                                 /* jnz .call (misaligned: the helper refuses) */
        int[] ok = new int[arrays.size()];
        for (int i = 0; i < arrays.size(); i++) {
            LookupInlining.LockValues v = arrays.get(i);
            int[] next = new int[3];
            e.movabs(RegMap.AUX, v.openWord());                                /* movabs r10, open word */
            e.aluMI(AluOp.CMP, true, Mem.of(RegMap.AUX, 0), 0);                /* cmp qword [r10], 0 */
            next[0] = e.jccForward32(Cond.E);                                  /* je .next (closed) */
            e.movRR(true, X86Reg.RAX, lock);                                   /* mov rax, rdi */
            e.movabs(RegMap.AUX, v.base());                                    /* movabs r10, base */
            e.aluRR(AluOp.SUB, true, X86Reg.RAX, RegMap.AUX);                  /* sub rax, r10 */
            next[1] = e.jccForward32(Cond.B);                                  /* jb .next (below the values) */
            e.movabs(RegMap.AUX, v.size());                                    /* movabs r10, size */
            e.aluRR(AluOp.CMP, true, X86Reg.RAX, RegMap.AUX);                  /* cmp rax, r10 */
            next[2] = e.jccForward32(Cond.AE);                                 /* jae .next (past them) */
            offsetInValue(e, v.stride());                                      /* rdx = rax mod stride */
            e.aluRI(AluOp.CMP, true, X86Reg.RDX, v.lockOffset());              /* cmp rdx, lock_off */
            toCall[n++] = e.jccForward32(Cond.NE);                             /* jne .call (inside a value, not its lock) */
            ok[i] = e.jmpForward32();                                          /* jmp .ok */
            for (int j : next) e.bind32(j);                                    /* .next: */
        }
        toCall[n++] = e.jmpForward32();                                        /* jmp .call (no known lock array) */
        for (int j : ok) e.bind32(j);                                          /* .ok: */
        toCall[n++] = notInRunRegions(e, lock);                                /* (not writable by this run: the helper refuses) */
        int done;
        if (b.id() == HelperIds.SPIN_LOCK) {
            X86Reg spins = RegMap.AUX2;
            e.movImm32(spins, SPINS);                                          /* mov r11d, SPINS */
            int retry = e.position();                                          /* .retry: */
            e.aluRR(AluOp.XOR, false, X86Reg.RAX, X86Reg.RAX);                 /* xor eax, eax */
            e.movImm32(X86Reg.RDX, 1);                                         /* mov edx, 1 */
            e.lockCmpxchg(false, Mem.of(lock, 0), X86Reg.RDX);                 /* lock cmpxchg [rdi], edx */
            int taken = e.jccForward32(Cond.E);                                /* je .taken */
            int wait = e.position();                                           /* .wait: */
            e.pause();                                                         /* pause */
            e.aluRI(AluOp.SUB, false, spins, 1);                               /* sub r11d, 1 */
            toCall[n++] = e.jccForward32(Cond.E);                              /* je .call (held too long: the helper waits, then fails) */
            e.aluMI(AluOp.CMP, false, Mem.of(lock, 0), 0);                     /* cmp dword [rdi], 0 */
            e.jccRel32(Cond.NE, wait);                                         /* jne .wait */
            e.jmpTo(retry);                                                    /* jmp .retry */
            e.bind32(taken);                                                   /* .taken: */
        } else {
            e.aluRR(AluOp.XOR, false, X86Reg.RAX, X86Reg.RAX);                 /* xor eax, eax */
            e.xchg(false, Mem.of(lock, 0), X86Reg.RAX);                        /* xchg [rdi], eax (as SpinLock.unlock's getAndSet) */
        }
        e.aluRR(AluOp.XOR, false, X86Reg.RAX, X86Reg.RAX);                     /* xor eax, eax (r0 = 0) */
        done = e.jmpForward32();                                               /* jmp .done */
        InlineLookup.callAndJoin(c, pc, b, java.util.Arrays.copyOf(toCall, n), done);
        return true;
    }

    /**
     * The helper's first check, {@code checkArgument(r1, 4 bytes, write)}: the lock word must lie in a
     * writable region of the run's table (a lock array's values are never in a BPF frame). The table is the
     * run's, not the load's: a run started with a hand-built {@code RunContext} may lack the map's regions,
     * and then the helper refuses the lock. First the writable region the inline stores cached
     * ({@code [FAST_W_START, FAST_W_LAST + 8)}, a region of the same table), else a scan of the table.
     * Returns the jump taken when no region holds the word. Clobbers rax, rdx, r10.
     *
     * <pre>
     *   cmp rdi, [r12 + FAST_W_START]; jb .scan; cmp rdi, [r12 + FAST_W_LAST]; jbe .in
     * .scan: lea rdx, [rdi + 4]; mov rax, [r12 + REGION_COUNT]; lea r10, [r12 + REGIONS]
     * .region: test rax, rax; je .call
     *   cmp rdi, [r10]; jb .next; cmp rdx, [r10 + 8]; ja .next; cmp qword [r10 + 16], 0; jne .in
     * .next: add r10, 24; sub rax, 1; jmp .region
     * .in:
     * </pre>
     */
    private static int notInRunRegions(X86Encoder e, X86Reg lock) {
        X86Reg end = X86Reg.RDX, left = X86Reg.RAX, region = RegMap.AUX;
        e.aluRM(AluOp.CMP, true, lock, JitContext.env(EnvLayout.FAST_W_START)); /* cmp rdi, [r12 + FAST_W_START] */
        int below = e.jccForward8(Cond.B);                                     /* jb .scan */
        e.aluRM(AluOp.CMP, true, lock, JitContext.env(EnvLayout.FAST_W_LAST));  /* cmp rdi, [r12 + FAST_W_LAST] */
        int cached = e.jccForward32(Cond.BE);                                  /* jbe .in (8 bytes from rdi in the cached region) */
        e.bind(below);                                                         /* .scan: */
        e.lea(end, Mem.of(lock, 4));                                           /* lea rdx, [rdi + 4] (no wrap: rdi is in a values array) */
        e.load(true, left, JitContext.env(EnvLayout.REGION_COUNT));            /* mov rax, [r12 + REGION_COUNT] */
        e.lea(region, JitContext.env(EnvLayout.REGIONS));                      /* lea r10, [r12 + REGIONS] */
        int loop = e.position();                                               /* .region: */
        e.testRR(true, left, left);                                            /* test rax, rax */
        int none = e.jccForward32(Cond.E);                                     /* je .call */
        e.aluRM(AluOp.CMP, true, lock, Mem.of(region, 0));                     /* cmp rdi, [r10] (start) */
        int next1 = e.jccForward8(Cond.B);                                     /* jb .next */
        e.aluRM(AluOp.CMP, true, end, Mem.of(region, EnvLayout.REGION_END));   /* cmp rdx, [r10 + 8] (end) */
        int next2 = e.jccForward8(Cond.A);                                     /* ja .next */
        e.aluMI(AluOp.CMP, true, Mem.of(region, EnvLayout.REGION_WRITABLE), 0); /* cmp qword [r10 + 16], 0 */
        int found = e.jccForward32(Cond.NE);                                   /* jne .in */
        e.bind(next1);                                                         /* .next: */
        e.bind(next2);
        e.aluRI(AluOp.ADD, true, region, EnvLayout.REGION_SIZE);               /* add r10, 24 */
        e.aluRI(AluOp.SUB, true, left, 1);                                     /* sub rax, 1 */
        e.jmpTo(loop);                                                         /* jmp .region */
        e.bind32(cached);                                                      /* .in: */
        e.bind32(found);
        return none;
    }

    /** rdx = rax mod stride (rax an offset below 2^63). Clobbers rax and r10 for a stride that is not a power of two. */
    private static void offsetInValue(X86Encoder e, int stride) {
        if (Integer.bitCount(stride) == 1) {
            e.movRR(true, X86Reg.RDX, X86Reg.RAX);                             /* mov rdx, rax */
            e.aluRI(AluOp.AND, true, X86Reg.RDX, stride - 1);                  /* and rdx, stride - 1 */
            return;
        }
        e.aluRR(AluOp.XOR, false, X86Reg.RDX, X86Reg.RDX);                     /* xor edx, edx */
        e.movImm32(RegMap.AUX, stride);                                        /* mov r10d, stride */
        e.div(true, false, RegMap.AUX);                                        /* div r10 (rdx = remainder) */
    }
}
