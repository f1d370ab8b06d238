package dev.bpf4j.jit.probe;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;
import dev.bpf4j.jit.runtime.ExecutableMemory;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.CodeBuffer;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.unwind.CfaRule;
import dev.bpf4j.unwind.CodeMap;
import dev.bpf4j.unwind.CodeRegion;
import dev.bpf4j.unwind.UnwindRow;

import java.util.HashMap;
import java.util.Map;

/**
 * The SIGTRAP handler of live patching ({@link TextPoke}), generated native code: a thread that
 * meets the {@code int3} written on a patch site's first byte is moved on as if it had executed the
 * instruction being written — Linux's {@code poke_int3_handler}: either a {@code call} (push
 * site + 5, continue at the trampoline: the hit is not lost) or what the original bytes do
 * (continue at their relocated copy, or after the 5-byte nop). Each site has one table entry
 * {site, action}, kept for the life of the process (a thread may take the trap just before the
 * int3 is overwritten and run the handler after): action &gt; 0 jumps there, action &lt; 0 emulates
 * {@code call -action}. Any other SIGTRAP (another int3, a debugger's, {@code kill}) goes to the
 * handler that was installed before, or to the default action.
 *
 * <p>HotSpot on x86-64 handles no SIGTRAP (it uses SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGUSR2), so
 * the handler takes it without displacing the JVM's. Why generated code rather than a C helper:
 * no compiler at run time, nothing to ship per platform, and no Java on the signal path (a jffi
 * closure would enter the JVM from a signal handler, which it does not allow).
 */
final class TrapHandler {
    private TrapHandler() {}

    private static final int SIGTRAP = 5, SA_SIGINFO = 4, SA_RESTART = 0x10000000;
    private static final int SI_KERNEL = 0x80;
    /** glibc's {@code struct sigaction}: handler at 0, mask at 8 (128 bytes), flags at 136, restorer at 144. */
    private static final int SIGACTION_SIZE = 152, SA_MASK = 8, SA_FLAGS = 136;
    /** ucontext_t: uc_mcontext.gregs at 40; REG_RSP 15, REG_RIP 16. */
    private static final int UC_RSP = 40 + 15 * 8, UC_RIP = 40 + 16 * 8;
    private static final int SIGINFO_CODE = 8;
    static final int CAPACITY = 4096;
    static final String SYMBOL = "bpf4j_text_poke_int3";

    private static final int SI_QUEUE = -1, SIGINFO_VALUE = 24;
    /**
     * The signal of {@link ThreadMoves}: a real-time one (SIGRTMAX - 2), which queues. A second
     * SIGTRAP sent while a thread's int3 trap is pending would be merged with it and lost.
     */
    static final int MOVE_SIGNAL = 62;
    /** Thread moves of one {@link ThreadMoves} round: {from, to} pairs, a 0 from ends them. */
    static final int MOVES = 8;
    /** {@code nonce}: the word holding the value the current move round's signals carry (0: no round). */
    private static long table, previous, moves, acks, nonce, roundBase, rounds;
    private static final long RAISE = Library.getDefault().getSymbolAddress("raise");
    private static ExecutableMemory code;
    private static final Map<Long, Long> ENTRIES = new HashMap<>();

    /** Sets what a thread trapping on the int3 at {@code site} does: continue at {@code target}, or call it. */
    static synchronized void emulate(long site, long target, boolean call) {
        install();
        Long entry = ENTRIES.get(site);
        if (entry == null) {
            if (ENTRIES.size() == CAPACITY - 1) throw new IllegalStateException("more than " + (CAPACITY - 1) + " patch sites");
            entry = table + 16L * ENTRIES.size();
            ENTRIES.put(site, entry);
            NativeMemory.putLong(entry + 8, call ? -target : target);
            NativeMemory.putLong(entry, site);                // published last: the handler stops at the first 0 site
        } else {
            NativeMemory.putLong(entry + 8, call ? -target : target);
        }
    }

    private static void install() {
        if (code != null) return;
        table = NativeMemory.allocate(16L * CAPACITY);
        NativeMemory.setMemory(table, 16L * CAPACITY, (byte) 0);
        previous = NativeMemory.allocate(16);
        NativeMemory.setMemory(previous, 16, (byte) 0);
        moves = NativeMemory.allocate(16L * (MOVES + 1));
        NativeMemory.setMemory(moves, 16L * (MOVES + 1), (byte) 0);
        acks = NativeMemory.allocate(8);
        NativeMemory.putLong(acks, 0);
        nonce = NativeMemory.allocate(8);
        NativeMemory.putLong(nonce, 0);
        roundBase = new java.security.SecureRandom().nextLong() & ~0xffffffffL;
        Library libc = Library.getCachedInstance("libc.so.6", Library.LAZY | Library.GLOBAL);
        long sigaction = libc.getSymbolAddress("sigaction"), signal = libc.getSymbolAddress("signal");
        if (sigaction == 0 || signal == 0) throw new IllegalStateException("libc has no sigaction/signal: cannot install the SIGTRAP handler");
        int[] moveEntry = new int[1];
        code = ExecutableMemory.of(emit(table, previous, signal, moves, acks, nonce, moveEntry));
        CodeMap.global().register(new CodeRegion(code.address(), code.size(), SYMBOL, NativeProbe.MODULE,
                java.util.List.of(new UnwindRow(0, code.size(), CfaRule.RETURN_AT_SP))));
        handle(sigaction, SIGTRAP, code.address(), previous);
        handle(sigaction, MOVE_SIGNAL, code.address() + moveEntry[0], previous + 8);
    }

    /** Installs {@code handler} for {@code sig}, keeping the one it replaces at {@code previousSlot} first. */
    private static void handle(long sigaction, int sig, long handler, long previousSlot) {
        long act = NativeMemory.allocate(SIGACTION_SIZE), old = NativeMemory.allocate(SIGACTION_SIZE);
        try {
            NativeMemory.setMemory(act, SIGACTION_SIZE, (byte) 0);
            NativeMemory.setMemory(old, SIGACTION_SIZE, (byte) 0);
            NativeMemory.putLong(act, handler);
            NativeMemory.putInt(act + SA_FLAGS, SA_SIGINFO | SA_RESTART);
            CallContext cc = CallContext.getCallContext(Type.SINT32, new Type[]{Type.SINT32, Type.POINTER, Type.POINTER}, CallingConvention.DEFAULT, false);
            int rc = (int) Invoker.getInstance().invokeN3(cc, sigaction, sig, 0, old);
            if (rc != 0) throw new IllegalStateException("sigaction(" + sig + ") query failed");
            NativeMemory.putLong(previousSlot, NativeMemory.getLong(old));
            rc = (int) Invoker.getInstance().invokeN3(cc, sigaction, sig, act, 0);
            if (rc != 0) throw new IllegalStateException("sigaction(" + sig + ") failed");
        } finally {
            NativeMemory.free(act);
            NativeMemory.free(old);
        }
    }

    /** Publishes the moves of one round ({@code from[k]} to {@code to[k]}); an empty list clears them. */
    static synchronized void moves(long[] from, long[] to) {
        install();
        if (from.length > MOVES) throw new IllegalArgumentException("more than " + MOVES + " moves");
        NativeMemory.setMemory(moves, 16L * (MOVES + 1), (byte) 0);
        for (int k = 0; k < from.length; k++) {
            NativeMemory.putLong(moves + 16L * k + 8, to[k]);
            NativeMemory.putLong(moves + 16L * k, from[k]);
        }
    }

    /** Signals handled by the move path so far. */
    static long acks() { return NativeMemory.getLongVolatile(acks); }

    /**
     * Starts a move round: the value its signals carry in {@code si_value} (random per process, new
     * per round, so a late signal of a round given up is not counted in the next); {@link #endRound} ends it.
     */
    static synchronized long startRound() {
        install();
        long value = roundBase | (++rounds & 0xffffffffL) | 1;
        NativeMemory.putLong(nonce, value);         // the signals are sent by system calls after this store
        return value;
    }

    static synchronized void endRound() { NativeMemory.putLong(nonce, 0); }

    /** The handler that was installed before ours (0 = SIG_DFL, 1 = SIG_IGN), for tests. */
    static synchronized long previousHandler() { install(); return NativeMemory.getLong(previous); }

    static synchronized long address() { install(); return code.address(); }

    /**
     * Two handlers {@code void handler(int sig, siginfo_t *info, ucontext_t *uc)}: at 0 the SIGTRAP
     * one (int3 emulation), at {@code moveEntry} the one of {@link #MOVE_SIGNAL} (thread moves).
     */
    private static byte[] emit(long table, long previous, long signal, long moves, long acks, long nonce, int[] moveEntry) {
        CodeBuffer b = new CodeBuffer();
        X86Encoder e = new X86Encoder(b);
        // SIGTRAP
        e.aluMI(AluOp.CMP, false, Mem.of(X86Reg.RSI, SIGINFO_CODE), SI_KERNEL); /* cmp dword [rsi + si_code], SI_KERNEL (an int3) */
        int notInt3 = e.jccForward8(Cond.NE);                 /* jne .chain_trap */
        e.load(true, X86Reg.RAX, Mem.of(X86Reg.RDX, UC_RIP));       /* mov rax, [rdx + rip] */
        e.lea(X86Reg.RAX, Mem.of(X86Reg.RAX, -1));                  /* lea rax, [rax - 1] (the int3's address) */
        e.movabs(X86Reg.R8, table);                              /* movabs r8, table */
        int loop = e.position();                              /* .loop: */
        e.load(true, X86Reg.R9, Mem.of(X86Reg.R8, 0));              /* mov r9, [r8] (site) */
        e.testRR(true, X86Reg.R9, X86Reg.R9);                       /* test r9, r9 */
        int end = e.jccForward8(Cond.E);                      /* je .chain_trap (end of table) */
        e.aluRR(AluOp.CMP, true, X86Reg.R9, X86Reg.RAX);            /* cmp r9, rax */
        int found = e.jccForward8(Cond.E);                    /* je .found */
        e.aluRI(AluOp.ADD, true, X86Reg.R8, 16);                 /* add r8, 16 */
        e.jmpTo(loop);                                        /* jmp .loop */
        e.bind(found);                                        /* .found: */
        e.load(true, X86Reg.R9, Mem.of(X86Reg.R8, 8));              /* mov r9, [r8 + 8] (action) */
        e.testRR(true, X86Reg.R9, X86Reg.R9);                       /* test r9, r9 */
        int unset = e.jccForward8(Cond.E);                    /* je .chain_trap */
        int jump = e.jccForward8(Cond.G);                     /* jg .jump */
        e.neg(true, X86Reg.R9);                                  /* neg r9 (call target) */
        e.load(true, X86Reg.R10, Mem.of(X86Reg.RDX, UC_RSP));       /* mov r10, [rdx + rsp] */
        e.aluRI(AluOp.SUB, true, X86Reg.R10, 8);                 /* sub r10, 8 */
        e.lea(X86Reg.R11, Mem.of(X86Reg.RAX, PatchSite.LENGTH));    /* lea r11, [rax + 5] (return address) */
        e.store(8, Mem.of(X86Reg.R10, 0), X86Reg.R11);              /* mov [r10], r11 (push it) */
        e.store(8, Mem.of(X86Reg.RDX, UC_RSP), X86Reg.R10);         /* mov [rdx + rsp], r10 */
        e.bind(jump);                                         /* .jump: */
        e.store(8, Mem.of(X86Reg.RDX, UC_RIP), X86Reg.R9);          /* mov [rdx + rip], r9 */
        e.ret();                                              /* ret (sigreturn resumes there) */
        e.bind(notInt3);                                      /* .chain_trap: */
        e.bind(end);
        e.bind(unset);
        chain(e, previous, signal, SIGTRAP, true);
        // MOVE_SIGNAL
        moveEntry[0] = e.position();
        e.aluMI(AluOp.CMP, false, Mem.of(X86Reg.RSI, SIGINFO_CODE), SI_QUEUE); /* cmp dword [rsi + si_code], SI_QUEUE */
        int notQueued = e.jccForward8(Cond.NE);               /* jne .chain_move */
        e.movabs(X86Reg.RAX, nonce);                             /* movabs rax, &round */
        e.load(true, X86Reg.RAX, Mem.of(X86Reg.RAX, 0));            /* mov rax, [rax] (this round's value; 0 between rounds) */
        e.testRR(true, X86Reg.RAX, X86Reg.RAX);                     /* test rax, rax */
        int noRound = e.jccForward8(Cond.E);                  /* je .chain_move (a late signal of a round given up) */
        e.aluRM(AluOp.CMP, true, X86Reg.RAX, Mem.of(X86Reg.RSI, SIGINFO_VALUE)); /* cmp rax, [rsi + si_value] */
        int notOurs = e.jccForward8(Cond.NE);                 /* jne .chain_move (someone else's sigqueue, or an older round) */
        e.load(true, X86Reg.RAX, Mem.of(X86Reg.RDX, UC_RIP));       /* mov rax, [rdx + rip] */
        e.movabs(X86Reg.R8, moves);                              /* movabs r8, moves */
        int scan = e.position();                              /* .scan: */
        e.load(true, X86Reg.R9, Mem.of(X86Reg.R8, 0));              /* mov r9, [r8] (from) */
        e.testRR(true, X86Reg.R9, X86Reg.R9);                       /* test r9, r9 */
        int done = e.jccForward8(Cond.E);                     /* je .ack */
        e.aluRR(AluOp.CMP, true, X86Reg.R9, X86Reg.RAX);            /* cmp r9, rax */
        int next = e.jccForward8(Cond.NE);                    /* jne .next */
        e.load(true, X86Reg.R9, Mem.of(X86Reg.R8, 8));              /* mov r9, [r8 + 8] (to) */
        e.store(8, Mem.of(X86Reg.RDX, UC_RIP), X86Reg.R9);          /* mov [rdx + rip], r9: on into the displaced copy */
        int moved = e.jmpForward8();                          /* jmp .ack */
        e.bind(next);                                         /* .next: */
        e.aluRI(AluOp.ADD, true, X86Reg.R8, 16);                 /* add r8, 16 */
        e.jmpTo(scan);                                        /* jmp .scan */
        e.bind(done);                                         /* .ack: */
        e.bind(moved);
        e.movabs(X86Reg.R8, acks);                               /* movabs r8, acks */
        e.movImm32(X86Reg.R9, 1);                                /* mov r9d, 1 */
        e.aluMR(AluOp.ADD, true, Mem.of(X86Reg.R8, 0), X86Reg.R9, true); /* lock add [r8], r9 */
        e.ret();                                              /* ret */
        e.bind(notQueued);                                    /* .chain_move: */
        e.bind(notOurs);
        e.bind(noRound);
        chain(e, previous + 8, signal, MOVE_SIGNAL, false);
        return b.toByteArray();
    }

    /**
     * To the handler installed before ours (same arguments). With SIG_IGN before: nothing. With
     * SIG_DFL: for a SIGTRAP, the default action, as without us (reset it and raise the signal
     * again: a foreign int3 or {@code kill -TRAP} dumps core); a queued signal nobody else handles
     * is dropped.
     */
    private static void chain(X86Encoder e, long previous, long signal, int sig, boolean trap) {
        e.movabs(X86Reg.RAX, previous);                          /* movabs rax, &previous */
        e.load(true, X86Reg.RAX, Mem.of(X86Reg.RAX, 0));            /* mov rax, [rax] */
        e.aluRI(AluOp.CMP, true, X86Reg.RAX, 1);                 /* cmp rax, 1 (SIG_DFL 0, SIG_IGN 1) */
        int dfl = e.jccForward8(Cond.BE);                     /* jbe .default */
        e.jmpR(X86Reg.RAX);                                      /* jmp rax (the previous handler, same arguments) */
        e.bind(dfl);                                          /* .default: */
        if (!trap) {
            e.ret();                                          /* ret */
            return;
        }
        int ignored = e.jccForward8(Cond.E);                  /* je .ignored (SIG_IGN) */
        e.aluRI(AluOp.SUB, true, X86Reg.RSP, 8);                 /* sub rsp, 8 (16-align the calls) */
        e.movImm32(X86Reg.RDI, sig);                             /* mov edi, sig */
        e.aluRR(AluOp.XOR, false, X86Reg.RSI, X86Reg.RSI);          /* xor esi, esi (SIG_DFL) */
        e.movabs(X86Reg.RAX, signal);                            /* movabs rax, signal */
        e.callR(X86Reg.RAX);                                     /* call rax */
        e.movImm32(X86Reg.RDI, sig);                             /* mov edi, sig */
        e.movabs(X86Reg.RAX, RAISE);                             /* movabs rax, raise */
        e.callR(X86Reg.RAX);                                     /* call rax: pending until we return, then the default action */
        e.aluRI(AluOp.ADD, true, X86Reg.RSP, 8);                 /* add rsp, 8 */
        e.bind(ignored);                                      /* .ignored: */
        e.ret();                                              /* ret */
    }
}
