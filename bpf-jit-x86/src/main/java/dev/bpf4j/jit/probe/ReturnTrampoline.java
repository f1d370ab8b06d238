package dev.bpf4j.jit.probe;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Type;
import dev.bpf4j.jit.runtime.ExecutableMemory;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.CodeBuffer;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.jit.x86.Shift;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.unwind.CfaRule;
import dev.bpf4j.unwind.CodeMap;
import dev.bpf4j.unwind.CodeRegion;
import dev.bpf4j.unwind.UnwindRow;

import java.util.List;

/**
 * The process's one return trampoline ({@code bpf4j_uretprobe_trampoline}, Linux's uretprobe
 * trampoline) and the per-thread shadow stacks of the return addresses it replaced, all generated
 * code and never unmapped: a thread may hold a swapped return address for as long as it likes.
 *
 * <p><b>Shadow stacks.</b> One 4 KiB page per thread ({@code mmap} by system call on the thread's
 * first return-probed call: no libc, so malloc itself can be return-probed), found through a
 * process-wide open-addressing table keyed by the thread pointer ({@code fs:0}, the x86-64 TLS ABI's
 * self pointer). A page: {@code depth, tid, tp}, then {@link #MAX_ACTIVE} entries
 * {@code {slot, return address, exits}} — the stack address of the replaced return address (Linux's
 * {@code return_instance.stack}), what it held, and the probe's {@link #exitsBlock exits block}.
 *
 * <p><b>Entry</b> ({@code shadow_push(slot, exits)}, called by an entry trampoline after its
 * programs): entries whose slot is at or below the new one are frames that were left without
 * returning (longjmp, an exception, a cancelled thread) and are dropped, each counted in its probe's
 * {@code lost} word — except an entry of the same slot that the slot still names (a tail call of a
 * return-probed function into another: the new entry copies its real return address, and the one
 * return runs both exit handlers, as Linux chains them). A full shadow
 * stack counts {@code missed} and leaves the return alone (the uretprobe depth limit, kretprobe's
 * {@code maxactive}). Otherwise the entry is pushed and the slot gets the trampoline's address.
 *
 * <p><b>Return</b> (the trampoline, entered by the function's {@code ret} with rsp = slot + 8): put
 * rsp back on the slot, push rbp (a standard frame), save every register into a {@code pt_regs},
 * pop the entry of this slot (stale entries above it are dropped and counted lost), write the real
 * return address into the slot — from then on the frame is an ordinary frame of the caller — and
 * call the probe's current exit handler, if any, with ip = the real return address and sp = slot +
 * 8 (Linux's uretprobe regs); then restore every register and return to the caller. A return with
 * no entry for its slot cannot happen unless the shadow stack was corrupted: {@code ud2}.
 */
final class ReturnTrampoline {
    static final String SYMBOL = "bpf4j_uretprobe_trampoline";
    static final int MAX_ACTIVE = 64;
    static final int DEPTH = 0, TID = 8, TP = 16, ENTRIES = 64, ENTRY = 24, SLOT = 0, RA = 8, EXITS = 16;
    /** An exits block: the current exit handler (0: none), returns not probed (stack full), returns never seen (lost). */
    static final int HANDLER = 0, MISSED = 8, LOST = 16, EXITS_SIZE = 24;
    private static final int THREAD_BITS = 14, THREADS = 1 << THREAD_BITS;
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;
    private static final int FRAME = PtRegsLayout.SIZE + 8 + 32;   // pt_regs, pad, xmm0-1
    private static final int XMM = PtRegsLayout.SIZE + 8;
    private static final CallContext L_V = CallContext.getCallContext(Type.SINT64, new Type[0], CallingConvention.DEFAULT, false);
    private static volatile ReturnTrampoline instance;

    private final long table;
    private final ExecutableMemory code;
    private final long push, current, trampoline;

    private ReturnTrampoline() {
        table = NativeMemory.allocate(16L * THREADS);
        NativeMemory.setMemory(table, 16L * THREADS, (byte) 0);
        CodeBuffer b = new CodeBuffer();
        X86Encoder e = new X86Encoder(b);
        int get = emitGet(e, b);
        int cur = e.position();
        e.aluRR(AluOp.XOR, false, X86Reg.RDI, X86Reg.RDI);          /* xor edi, edi (find only) */
        e.jmpRel32(get);                                      /* jmp get */
        e.alignTo(16);
        int pad = e.position();
        b.emit8(0xcc);                                        /* int3: a return address is looked up at ra - 1 */
        int tramp = e.position();
        int[] rowsAt = emitTrampoline(e, b, get);
        e.alignTo(16);
        int pushAt = e.position();
        emitPush(e, b, get, tramp);
        code = ExecutableMemory.of(b.toByteArray());
        push = code.address() + pushAt;
        current = code.address() + cur;
        trampoline = code.address() + tramp;
        int t = tramp - pad;
        CodeMap.global().register(new CodeRegion(code.address(), pad, "bpf4j_uretprobe_shadow", NativeProbe.MODULE, List.of()));
        CodeMap.global().register(new CodeRegion(code.address() + pad, pushAt - pad, SYMBOL, NativeProbe.MODULE, List.of(
                new UnwindRow(t + rowsAt[0], t + rowsAt[1], CfaRule.RETURN_AT_SP),
                new UnwindRow(t + rowsAt[1], t + rowsAt[2], CfaRule.RETURN_AT_SP_PLUS_8),
                new UnwindRow(t + rowsAt[2], t + rowsAt[3], CfaRule.FRAME_POINTER),
                new UnwindRow(t + rowsAt[3], t + rowsAt[4], CfaRule.RETURN_AT_SP))));
        CodeMap.global().register(new CodeRegion(push, b.size() - pushAt, "bpf4j_uretprobe_push", NativeProbe.MODULE, List.of()));
        CodeMap.global().registerReturnTrampoline(trampoline, new CodeMap.ReturnTrampoline() {
            @Override public long ownThread(long slot) { return originalReturn(slot); }
            @Override public long anyThread(long slot) { return anyThreadReturn(slot); }
        });
    }

    /** The process's return trampoline (made on first use, kept for the life of the process). */
    static ReturnTrampoline get() {
        ReturnTrampoline r = instance;
        if (r == null) {
            synchronized (ReturnTrampoline.class) {
                r = instance;
                if (r == null) instance = r = new ReturnTrampoline();
            }
        }
        return r;
    }

    /** The address return-probed functions return to. */
    long address() { return trampoline; }

    /** {@code void shadow_push(long slot, long exits)}: what an entry trampoline calls to swap the return address. */
    long pushRoutine() { return push; }

    /** A new exits block, zeroed; kept for the life of the process (shadow stack entries point at it). */
    static long exitsBlock() {
        long a = NativeMemory.allocate(EXITS_SIZE);
        NativeMemory.setMemory(a, EXITS_SIZE, (byte) 0);
        return a;
    }

    /** The calling thread's shadow stack, or 0 (it never called a return-probed function). */
    long currentStack() { return Invoker.getInstance().invokeN0(L_V, current); }

    /** Entries of the calling thread's shadow stack, innermost first: {slot, return address} pairs. */
    long[][] currentEntries() {
        long s = currentStack();
        if (s == 0) return new long[0][];
        int depth = (int) Math.min(NativeMemory.getLong(s + DEPTH), MAX_ACTIVE);
        long[][] out = new long[depth][];
        for (int i = 0; i < depth; i++) {
            long e = s + ENTRIES + (long) (depth - 1 - i) * ENTRY;
            out[i] = new long[]{NativeMemory.getLong(e + SLOT), NativeMemory.getLong(e + RA)};
        }
        return out;
    }

    /**
     * The return address the trampoline replaced in the calling thread's slot at {@code slot} (0:
     * none — the slot is another thread's). Entries of one slot chain (a tail call) and carry the
     * same real address.
     */
    long originalReturn(long slot) {
        for (long[] e : currentEntries()) {
            if (e[0] == slot && e[1] != trampoline) return e[1];
        }
        return 0;
    }

    /**
     * The return address replaced in the slot at {@code slot} of whichever thread's stack holds it,
     * read now from that thread's shadow stack (0: none). Stacks are disjoint, so the slot names
     * the thread; but by the time a sample is unwound the frame may have returned and the slot been
     * swapped again by another call: a guess (the unwinder marks such traces not reliable).
     */
    long anyThreadReturn(long slot) {
        for (int i = 0; i < THREADS; i++) {
            long page = NativeMemory.getLongVolatile(table + 16L * i + 8);
            if (page == 0) continue;
            long depth = Math.min(NativeMemory.getLongVolatile(page + DEPTH), MAX_ACTIVE);
            for (long k = depth - 1; k >= 0; k--) {
                long e = page + ENTRIES + k * ENTRY;
                if (NativeMemory.getLongVolatile(e + SLOT) != slot) continue;
                long ra = NativeMemory.getLongVolatile(e + RA);
                if (ra != trampoline) return ra;
            }
        }
        return 0;
    }

    /**
     * {@code long get(int create)}: the calling thread's shadow stack, made on first use when
     * {@code create}; 0 when there is none (or no memory, or the table is full). Clobbers the
     * caller-saved registers only.
     */
    private int emitGet(X86Encoder e, CodeBuffer b) {
        int get = e.position();
        for (int x : new int[]{0x64, 0x4c, 0x8b, 0x04, 0x25, 0, 0, 0, 0}) b.emit8(x); /* mov r8, fs:[0] (thread pointer) */
        hash(e, X86Reg.RAX, X86Reg.R8);
        e.movabs(X86Reg.R10, table);                             /* movabs r10, table */
        e.movImm32(X86Reg.R11, THREADS);                         /* mov r11d, THREADS (probes) */
        int find = e.position();
        slotAddress(e, X86Reg.RCX, X86Reg.RAX);
        e.load(true, X86Reg.RDX, Mem.of(X86Reg.RCX, 0));            /* mov rdx, [rcx] (key) */
        e.aluRR(AluOp.CMP, true, X86Reg.RDX, X86Reg.R8);            /* cmp rdx, r8 */
        int found = e.jccForward8(Cond.E);                    /* je .found */
        e.testRR(true, X86Reg.RDX, X86Reg.RDX);                     /* test rdx, rdx */
        int absent = e.jccForward8(Cond.E);                   /* je .absent */
        e.aluRI(AluOp.ADD, true, X86Reg.RAX, 1);                 /* add rax, 1 */
        e.aluRI(AluOp.AND, false, X86Reg.RAX, THREADS - 1);      /* and eax, THREADS - 1 */
        e.aluRI(AluOp.SUB, true, X86Reg.R11, 1);                 /* sub r11, 1 */
        e.jccRel8(Cond.NE, find);                             /* jne .find */
        e.bind(absent);                                       /* .absent: */
        e.testRR(false, X86Reg.RDI, X86Reg.RDI);                    /* test edi, edi */
        int create = e.jccForward8(Cond.NE);                  /* jne .create */
        e.aluRR(AluOp.XOR, false, X86Reg.RAX, X86Reg.RAX);          /* xor eax, eax */
        e.ret();                                              /* ret */
        e.bind(found);                                        /* .found: */
        e.load(true, X86Reg.RAX, Mem.of(X86Reg.RCX, 8));            /* mov rax, [rcx + 8] (0 while its owner is inserting it) */
        e.ret();                                              /* ret */
        e.bind(create);                                       /* .create: */
        e.push(X86Reg.RBX);
        e.push(X86Reg.R12);
        e.push(X86Reg.R13);
        e.movRR(true, X86Reg.R12, X86Reg.R8);                       /* mov r12, r8 (tp) */
        e.movImm32(X86Reg.RAX, 9);                               /* mmap(0, 4096, RW, PRIVATE|ANONYMOUS, -1, 0) */
        e.aluRR(AluOp.XOR, false, X86Reg.RDI, X86Reg.RDI);
        e.movImm32(X86Reg.RSI, 4096);
        e.movImm32(X86Reg.RDX, 3);
        e.movImm32(X86Reg.R10, 0x22);
        e.movImmSx(X86Reg.R8, -1);
        e.aluRR(AluOp.XOR, false, X86Reg.R9, X86Reg.R9);
        b.emit8(0x0f); b.emit8(0x05);                         /* syscall */
        e.aluRI(AluOp.CMP, true, X86Reg.RAX, -4096);             /* cmp rax, -4096 */
        int failed = e.jccForward32(Cond.A);                  /* ja .fail (-errno) */
        e.movRR(true, X86Reg.R13, X86Reg.RAX);                      /* mov r13, page */
        e.movImm32(X86Reg.RAX, 186);                             /* gettid() */
        b.emit8(0x0f); b.emit8(0x05);                         /* syscall */
        e.store(8, Mem.of(X86Reg.R13, TID), X86Reg.RAX);            /* mov [r13 + tid], rax */
        e.store(8, Mem.of(X86Reg.R13, TP), X86Reg.R12);             /* mov [r13 + tp], r12 */
        hash(e, X86Reg.RBX, X86Reg.R12);
        e.movabs(X86Reg.R10, table);
        e.movImm32(X86Reg.R11, THREADS);
        int insert = e.position();
        slotAddress(e, X86Reg.RCX, X86Reg.RBX);
        e.aluRR(AluOp.XOR, false, X86Reg.RAX, X86Reg.RAX);          /* xor eax, eax */
        e.lockCmpxchg(true, Mem.of(X86Reg.RCX, 0), X86Reg.R12);     /* lock cmpxchg [rcx], r12 (claim an empty slot) */
        int claimed = e.jccForward8(Cond.E);                  /* je .claimed */
        e.aluRI(AluOp.ADD, true, X86Reg.RBX, 1);
        e.aluRI(AluOp.AND, false, X86Reg.RBX, THREADS - 1);
        e.aluRI(AluOp.SUB, true, X86Reg.R11, 1);
        e.jccRel8(Cond.NE, insert);                           /* jne .insert (the page leaks when the table is full) */
        e.bind32(failed);                                     /* .fail: */
        e.aluRR(AluOp.XOR, false, X86Reg.RAX, X86Reg.RAX);
        int out = e.jmpForward8();
        e.bind(claimed);                                      /* .claimed: */
        e.store(8, Mem.of(X86Reg.RCX, 8), X86Reg.R13);              /* mov [rcx + 8], r13 */
        e.movRR(true, X86Reg.RAX, X86Reg.R13);
        e.bind(out);
        e.pop(X86Reg.R13);
        e.pop(X86Reg.R12);
        e.pop(X86Reg.RBX);
        e.ret();
        return get;
    }

    /** {@code dst = (tp * golden) >> (64 - bits)}: Fibonacci hashing of the thread pointer. */
    private static void hash(X86Encoder e, X86Reg dst, X86Reg tp) {
        e.movabs(X86Reg.R9, GOLDEN);
        e.movRR(true, dst, tp);
        e.imulRR(true, dst, X86Reg.R9);
        e.shiftImm(Shift.SHR, true, dst, 64 - THREAD_BITS);
    }

    /** {@code dst = r10 + index * 16}. */
    private static void slotAddress(X86Encoder e, X86Reg dst, X86Reg index) {
        e.movRR(true, dst, index);
        e.shiftImm(Shift.SHL, true, dst, 4);
        e.aluRR(AluOp.ADD, true, dst, X86Reg.R10);
    }

    /** {@code rdx = stack(rax) + index(rcx) * 24}: entry {@code rcx} is at [rdx + ENTRIES]. */
    private static void entryAddress(X86Encoder e) {
        e.imulRRI(true, X86Reg.RDX, X86Reg.RCX, ENTRY);             /* imul rdx, rcx, 24 */
        e.aluRR(AluOp.ADD, true, X86Reg.RDX, X86Reg.RAX);           /* add rdx, rax */
    }

    private static void countLost(X86Encoder e, X86Reg exits, int field) {
        e.movImm32(X86Reg.R9, 1);                                /* mov r9d, 1 */
        e.aluMR(AluOp.ADD, true, Mem.of(exits, field), X86Reg.R9, true); /* lock add [exits + field], r9 */
    }

    /** {@code void push(long slot, long exits)}; preserves the callee-saved registers. */
    private static void emitPush(X86Encoder e, CodeBuffer b, int get, int tramp) {
        e.push(X86Reg.RBX);
        e.push(X86Reg.R12);
        e.push(X86Reg.R13);
        e.push(X86Reg.R14);
        e.movRR(true, X86Reg.RBX, X86Reg.RDI);                      /* rbx = slot */
        e.movRR(true, X86Reg.R14, X86Reg.RSI);                      /* r14 = exits */
        e.movImm32(X86Reg.RDI, 1);                               /* create */
        e.callRel32(get);                                     /* call get */
        e.testRR(true, X86Reg.RAX, X86Reg.RAX);
        int noStack = e.jccForward32(Cond.E);                 /* je .miss */
        e.load(true, X86Reg.R12, Mem.of(X86Reg.RBX, 0));            /* r12 = [slot] (the return address) */
        e.leaRip(X86Reg.R13, tramp);                             /* r13 = the trampoline */
        e.load(true, X86Reg.RCX, Mem.of(X86Reg.RAX, DEPTH));        /* rcx = depth */
        int clean = e.position();
        e.testRR(true, X86Reg.RCX, X86Reg.RCX);
        int empty = e.jccForward8(Cond.E);                    /* je .push */
        entryAddress(e);
        e.load(true, X86Reg.R8, Mem.of(X86Reg.RDX, ENTRIES - ENTRY + SLOT)); /* r8 = top entry's slot */
        e.aluRR(AluOp.CMP, true, X86Reg.R8, X86Reg.RBX);
        int alive = e.jccForward8(Cond.A);                    /* ja .push: an outer frame */
        int below = e.jccForward8(Cond.B);                    /* jb .drop: left without returning */
        e.aluRR(AluOp.CMP, true, X86Reg.R12, X86Reg.R13);
        int notChained = e.jccForward8(Cond.NE);              /* jne .drop */
        // The same slot still holding the trampoline: a tail call from a return-probed function.
        // Chain (Linux's ri->chained): this entry gets the pending one's real return address.
        e.load(true, X86Reg.R12, Mem.of(X86Reg.RDX, ENTRIES - ENTRY + RA));
        int chained = e.jmpForward8();                        /* jmp .push */
        e.bind(below);
        e.bind(notChained);                                   /* .drop: */
        e.load(true, X86Reg.R8, Mem.of(X86Reg.RDX, ENTRIES - ENTRY + EXITS));
        countLost(e, X86Reg.R8, LOST);
        e.aluRI(AluOp.SUB, true, X86Reg.RCX, 1);
        e.store(8, Mem.of(X86Reg.RAX, DEPTH), X86Reg.RCX);
        e.jmpTo(clean);
        e.bind(empty);
        e.bind(alive);
        e.bind(chained);                                      /* .push: */
        e.aluRI(AluOp.CMP, true, X86Reg.RCX, MAX_ACTIVE);
        int full = e.jccForward8(Cond.AE);                    /* jae .miss */
        e.imulRRI(true, X86Reg.RDX, X86Reg.RCX, ENTRY);
        e.aluRR(AluOp.ADD, true, X86Reg.RDX, X86Reg.RAX);
        storeEntry(e);
        e.aluRI(AluOp.ADD, true, X86Reg.RCX, 1);
        e.store(8, Mem.of(X86Reg.RAX, DEPTH), X86Reg.RCX);          /* the entry first: a walk meeting the trampoline finds it */
        // Again: a signal handler that made and returned a return-probed call before the depth
        // store used the same entry; after it, the entry is ours alone.
        storeEntry(e);
        e.store(8, Mem.of(X86Reg.RBX, 0), X86Reg.R13);              /* [slot] = trampoline */
        int out = e.jmpForward8();
        e.bind(full);
        e.bind32(noStack);                                    /* .miss: */
        countLost(e, X86Reg.R14, MISSED);
        e.bind(out);
        e.pop(X86Reg.R14);
        e.pop(X86Reg.R13);
        e.pop(X86Reg.R12);
        e.pop(X86Reg.RBX);
        e.ret();
    }

    /** {@code entry[rdx] = {rbx (slot), r12 (return address), r14 (exits)}}. */
    private static void storeEntry(X86Encoder e) {
        e.store(8, Mem.of(X86Reg.RDX, ENTRIES + SLOT), X86Reg.RBX);
        e.store(8, Mem.of(X86Reg.RDX, ENTRIES + RA), X86Reg.R12);
        e.store(8, Mem.of(X86Reg.RDX, ENTRIES + EXITS), X86Reg.R14);
    }

    /** The return trampoline; returns the offsets (from its first byte) where its unwind rows change. */
    private static int[] emitTrampoline(X86Encoder e, CodeBuffer b, int get) {
        int start = e.position();
        e.lea(X86Reg.RSP, Mem.of(X86Reg.RSP, -8));                  /* lea rsp, [rsp - 8]: back on the slot (it still holds us) */
        int atSlot = e.position();
        e.push(X86Reg.RBP);                                      /* push rbp */
        int afterPush = e.position();
        e.movRR(true, X86Reg.RBP, X86Reg.RSP);                      /* mov rbp, rsp (A = slot - 8) */
        int fp = e.position();
        e.aluRI(AluOp.AND, true, X86Reg.RSP, -16);               /* and rsp, -16 */
        e.aluRI(AluOp.SUB, true, X86Reg.RSP, FRAME);             /* sub rsp, frame: pt_regs at [rsp] */
        X86Reg[] regs = TrampolineEmitter.savedRegisters();
        int[] at = TrampolineEmitter.savedSlots();
        for (int i = 0; i < regs.length; i++) e.store(8, Mem.of(X86Reg.RSP, at[i]), regs[i]);
        TrampolineEmitter.movdqu(b, true, 0, XMM);            /* movdqu [rsp + xmm], xmm0 (float return) */
        TrampolineEmitter.movdqu(b, true, 1, XMM + 16);       /* movdqu [rsp + xmm + 16], xmm1 */
        e.aluRR(AluOp.XOR, false, X86Reg.RDI, X86Reg.RDI);          /* find only */
        e.callRel32(get);                                     /* call get */
        e.testRR(true, X86Reg.RAX, X86Reg.RAX);
        int none = e.jccForward32(Cond.E);                    /* je .corrupt */
        e.movRR(true, X86Reg.RBX, X86Reg.RAX);                      /* rbx = page */
        e.lea(X86Reg.R12, Mem.of(X86Reg.RBP, 8));                   /* r12 = slot */
        e.load(true, X86Reg.RCX, Mem.of(X86Reg.RAX, DEPTH));
        int pop = e.position();
        e.testRR(true, X86Reg.RCX, X86Reg.RCX);
        int empty = e.jccForward32(Cond.E);                   /* je .corrupt */
        e.aluRI(AluOp.SUB, true, X86Reg.RCX, 1);
        entryAddress(e);
        e.load(true, X86Reg.R8, Mem.of(X86Reg.RDX, ENTRIES + SLOT));
        e.aluRR(AluOp.CMP, true, X86Reg.R8, X86Reg.R12);
        int got = e.jccForward8(Cond.E);                      /* je .got */
        int above = e.jccForward32(Cond.A);                   /* an outer frame's entry first: .corrupt */
        e.load(true, X86Reg.R8, Mem.of(X86Reg.RDX, ENTRIES + EXITS)); /* a frame left without returning: lost */
        countLost(e, X86Reg.R8, LOST);
        e.store(8, Mem.of(X86Reg.RAX, DEPTH), X86Reg.RCX);
        e.jmpTo(pop);
        e.bind(got);                                          /* .got: */
        e.load(true, X86Reg.R13, Mem.of(X86Reg.RDX, ENTRIES + RA));
        e.load(true, X86Reg.R14, Mem.of(X86Reg.RDX, ENTRIES + EXITS));
        e.store(8, Mem.of(X86Reg.R12, 0), X86Reg.R13);              /* [slot] = the real return address: a plain frame of the caller */
        e.store(8, Mem.of(X86Reg.RAX, DEPTH), X86Reg.RCX);          /* popped */
        e.store(8, Mem.of(X86Reg.RSP, PtRegsLayout.IP), X86Reg.R13);
        e.lea(X86Reg.R8, Mem.of(X86Reg.RBP, 16));
        e.store(8, Mem.of(X86Reg.RSP, PtRegsLayout.SP), X86Reg.R8); /* sp as after the return */
        e.load(true, X86Reg.R8, Mem.of(X86Reg.RBP, 0));
        e.store(8, Mem.of(X86Reg.RSP, PtRegsLayout.BP), X86Reg.R8);
        b.emit8(0x9c);                                        /* pushfq */
        e.pop(X86Reg.R8);                                        /* pop r8 */
        e.store(8, Mem.of(X86Reg.RSP, PtRegsLayout.FLAGS), X86Reg.R8);
        e.storeImm(8, Mem.of(X86Reg.RSP, PtRegsLayout.ORIG_AX), 0);
        e.storeImm(8, Mem.of(X86Reg.RSP, PtRegsLayout.CS), PtRegsLayout.USER_CS);
        e.storeImm(8, Mem.of(X86Reg.RSP, PtRegsLayout.SS), PtRegsLayout.USER_DS);
        e.load(true, X86Reg.RAX, Mem.of(X86Reg.R14, HANDLER));      /* the probe's exit handler now (0: detached) */
        e.testRR(true, X86Reg.RAX, X86Reg.RAX);
        int noHandler = e.jccForward8(Cond.E);
        e.movRR(true, X86Reg.RDI, X86Reg.RSP);                      /* rdi = &pt_regs */
        e.callR(X86Reg.RAX);                                     /* call handler (rsp 16-aligned) */
        e.bind(noHandler);
        // A chain (tail calls): the next entry has the same slot; its function returns here too.
        e.movRR(true, X86Reg.RAX, X86Reg.RBX);                      /* rax = page (rbx survives the handler) */
        e.load(true, X86Reg.RCX, Mem.of(X86Reg.RAX, DEPTH));
        e.testRR(true, X86Reg.RCX, X86Reg.RCX);
        int done = e.jccForward8(Cond.E);
        entryAddress(e);
        e.aluRM(AluOp.CMP, true, X86Reg.R12, Mem.of(X86Reg.RDX, ENTRIES - ENTRY + SLOT));
        e.jccRel32(Cond.E, pop);                              /* je .pop: run the chained function's handler */
        e.bind(done);
        TrampolineEmitter.movdqu(b, false, 0, XMM);
        TrampolineEmitter.movdqu(b, false, 1, XMM + 16);
        for (int i = regs.length - 1; i >= 0; i--) e.load(true, regs[i], Mem.of(X86Reg.RSP, at[i]));
        e.leave();                                            /* leave: rsp = slot */
        int afterLeave = e.position();
        e.ret();                                              /* ret: to the real return address */
        int end = e.position();
        e.bind32(none);
        e.bind32(empty);
        e.bind32(above);                                      /* .corrupt: no entry for this slot */
        b.emit8(0x0f); b.emit8(0x0b);                         /* ud2 */
        return new int[]{atSlot - start, afterPush - start, fp - start, afterLeave - start, end - start};
    }
}
