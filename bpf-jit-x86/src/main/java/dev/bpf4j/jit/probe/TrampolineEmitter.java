package dev.bpf4j.jit.probe;

import dev.bpf4j.jit.compiler.EnvLayout;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.CodeBuffer;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.unwind.CfaRule;
import dev.bpf4j.unwind.UnwindRow;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * The fentry trampoline of one patched function, entered by the {@code call} at its patch site
 * with {@code [rsp]} = site + 5 and {@code [rsp + 8]} = the parent's return address (S = rsp at entry),
 * or by its {@code jmp} ({@link PatchSite#jumps()}), after which it pushes site + 5 itself:
 *
 * <pre>
 *  [push qword [rip + .slot]]      jmp entry only: the same stack as after the call, no call to match
 *  push rbp; mov rbp, rsp          A = S - 8: a standard frame, [A] = parent rbp, [A + 8] = site + 5
 *  pushfq; and rsp, -16; sub rsp, FRAME; mov [rsp + SAVED_A], rbp
 *                                  flags (for pt_regs), then the frame, 16-aligned whatever S is:
 *                                  gcc's -fipa-stack-alignment calls functions of its own unit with
 *                                  rsp 8 bytes off when they need no alignment, and the jffi
 *                                  closure and helpers do need it
 *  save the registers into pt_regs; add 1 to each direct program's hit counter of this CPU
 *                                  (PerCpuHits: an rseq critical section; where the thread has no
 *                                  rseq, a lock add done before the other stores)
 *  ip = function, sp = S + 8, bp = parent rbp, flags;
 *  save xmm0-7 (float arguments) unless every program is JIT code without helpers (which uses xmm15 only)
 *  F1 = {parent rbp, parent ra}    the traced function's frame, as ftrace builds it for fentry
 *  F2 = {F1, site + 6}             the trampoline's frame for frame-pointer-only unwinders
 *  mov rbp, rsp                    rbp = F2: program frames chain F2 -> F1 -> parent -> ...
 *  per attached program: JIT: env stored on the stack as constants, call entry(&pt_regs, env),
 *                        count failures; other engines: call the upcall closure (&pt_regs, link id)
 *  restore xmm0-7 and registers; mov rbp, [rbp + SAVED_A] (A); leave; ret   back to site + 5
 *                                  (displaced instructions: lea rsp, [rsp + 8]; their copy, which
 *                                  jumps back after them)
 * </pre>
 *
 * F2's return address is site + 6, not site + 5: the patch site is registered in the code map with
 * the entry rule (return address at [rsp]), right for the real return address site + 5 (looked up
 * at site + 4) and for pt_regs.ip; site + 6 is looked up at site + 5, outside it, so a walk through
 * F2 takes the traced function's frame pointer to F1 and so to the parent. With these, every
 * instruction is covered by one of the three rules: entry, after push rbp, frame pointer (A until
 * {@code mov rbp, rsp}, F2 after it, A again from the final load of A).
 */
final class TrampolineEmitter {
    private TrampolineEmitter() {}

    /** One attached program as the trampoline calls it. */
    sealed interface Call permits JitCall, UpcallCall {}

    /**
     * A direct call into JIT code with an env block built on the stack from {@code envWords} (the
     * {@link EnvTemplate}'s qwords), of which only the {@code stored} ones ({@link ProbeEnvWords}); {@code nativeHelpers}: the code calls helpers (native code, or the JVM through the
     * bridge closure), which may use xmm registers.
     */
    record JitCall(long entry, long[] envWords, BitSet stored, long stats, boolean nativeHelpers) implements Call {
        int envBytes() { return envWords.length * 8; }
    }

    /**
     * A call of the upcall closure {@code void upcall(long pt_regs, long link, long *missed)}: the
     * counter is what the JNI upcall function adds to when the thread may not run Java
     * ({@code JavaThreadGate}; the closure itself takes two arguments).
     */
    record UpcallCall(long closure, long link, long missed) implements Call {}

    /** @param copy where the relocated displaced instructions start in the code, or -1 (a 5-byte nop site) */
    record Code(byte[] bytes, List<UnwindRow> rows, int copy) {}

    /** xmm registers that carry arguments (SysV): saved when a program may run code that uses SSE. */
    static final int XMM_ARGS = 8;
    static final int F2 = 0, F1 = 16, PT = 32, ENV = PT + PtRegsLayout.SIZE;
    /** Every register but rsp and rbp (saved by the frame), with its pt_regs slot. */
    private static final X86Reg[] SAVED = {X86Reg.RCX, X86Reg.RDX, X86Reg.R15, X86Reg.R14, X86Reg.R13, X86Reg.R12, X86Reg.RBX, X86Reg.R11, X86Reg.R10,
            X86Reg.R9, X86Reg.R8, X86Reg.RAX, X86Reg.RSI, X86Reg.RDI};
    private static final int[] SAVED_AT = {
            PtRegsLayout.CX, PtRegsLayout.DX, PtRegsLayout.R15, PtRegsLayout.R14, PtRegsLayout.R13, PtRegsLayout.R12,
            PtRegsLayout.BX, PtRegsLayout.R11, PtRegsLayout.R10, PtRegsLayout.R9, PtRegsLayout.R8, PtRegsLayout.AX,
            PtRegsLayout.SI, PtRegsLayout.DI};
    /** rcx and rdx, saved first: the hit counting that follows uses them. */
    private static final int SAVED_FIRST = 2;

    /** Every register but rsp and rbp, in the order the trampolines save them. */
    static X86Reg[] savedRegisters() { return SAVED.clone(); }

    /** The pt_regs offsets of {@link #savedRegisters()}. */
    static int[] savedSlots() { return SAVED_AT.clone(); }

    /** The trampoline for {@code site} placed at {@code base} (the displaced instructions' copy depends on it). */
    static Code emit(PatchSite site, List<Call> calls, long base) { return emit(site, calls, base, 0); }

    /**
     * The same, and with {@code exits} != 0 (the probe has return programs) a call of the return
     * trampoline's {@code shadow_push(&return address, exits)} after the programs: the return
     * address is swapped only once the entry programs have walked the stack.
     */
    static Code emit(PatchSite site, List<Call> calls, long base, long exits) {
        int envBytes = 0;
        for (Call c : calls) if (c instanceof JitCall) envBytes = Math.max(envBytes, ((JitCall) c).envBytes());
        // xmm0-7 carry float arguments; xmm8-15 are caller-saved and carry none, so the function
        // cannot expect them at its entry. JIT code uses only xmm15 (FrameEmitter.ZERO_XMM): only helpers and the JVM touch xmm0-7.
        int xmmSaved = calls.stream().anyMatch(c -> !(c instanceof JitCall) || ((JitCall) c).nativeHelpers()) ? XMM_ARGS : 0;
        int savedA = ENV + envBytes;                        // A, for the epilogue: the alignment gap varies
        int xmm = (savedA + 8 + 15) & ~15;
        int frame = xmm + 16 * xmmSaved;                    // a multiple of 16: F2 stays 16-byte aligned
        CodeBuffer b = new CodeBuffer();
        X86Encoder e = new X86Encoder(b);
        int returnSlot = -1;
        if (site.jumps()) {                                  // entered by jmp: make the frame a call would have made
            b.emit8(0xff); b.emit8(0x35); returnSlot = b.size(); b.emit32(0); /* push qword [rip + slot] (site + 5) */
        }
        e.push(X86Reg.RBP);                                     /* push rbp */
        int afterPush = e.position();
        e.movRR(true, X86Reg.RBP, X86Reg.RSP);                     /* mov rbp, rsp (A) */
        int fp = e.position();
        b.emit8(0x9c);                                       /* pushfq */
        e.aluRI(AluOp.AND, true, X86Reg.RSP, -16);              /* and rsp, -16 */
        e.aluRI(AluOp.SUB, true, X86Reg.RSP, frame);            /* sub rsp, frame */
        e.store(8, Mem.of(X86Reg.RSP, savedA), X86Reg.RBP);        /* mov [rsp + saved_a], rbp (A) */
        for (int i = 0; i < SAVED_FIRST; i++) {
            e.store(8, Mem.of(X86Reg.RSP, PT + SAVED_AT[i]), SAVED[i]); /* mov [rsp + pt_regs.r], r */
        }
        boolean perCpu = PerCpuHits.available();
        if (!perCpu) countHits(e, calls);
        for (int i = SAVED_FIRST; i < SAVED.length; i++) {
            e.store(8, Mem.of(X86Reg.RSP, PT + SAVED_AT[i]), SAVED[i]); /* mov [rsp + pt_regs.r], r */
        }
        PerCpuHits.Tails tails = new PerCpuHits.Tails();
        if (perCpu) {
            for (Call c : calls) {
                if (c instanceof JitCall) PerCpuHits.count(e, b, ((JitCall) c).stats() + ProbeStats.PER_CPU, ProbeStats.PER_CPU, tails);
            }
        }
        for (int x = 0; x < xmmSaved; x++) movdqu(b, true, x, xmm + 16 * x);   /* movdqu [rsp + xmm + 16x], xmmX */
        e.load(true, X86Reg.RAX, Mem.of(X86Reg.RBP, 0));           /* mov rax, [rbp] (parent rbp) */
        e.store(8, Mem.of(X86Reg.RSP, PT + PtRegsLayout.BP), X86Reg.RAX); /* mov [pt_regs.bp], rax */
        e.store(8, Mem.of(X86Reg.RSP, F1), X86Reg.RAX);            /* mov [F1], rax */
        e.load(true, X86Reg.RAX, Mem.of(X86Reg.RBP, 16));          /* mov rax, [rbp + 16] (parent ra) */
        e.store(8, Mem.of(X86Reg.RSP, F1 + 8), X86Reg.RAX);        /* mov [F1 + 8], rax */
        e.lea(X86Reg.RAX, Mem.of(X86Reg.RSP, F1));                 /* lea rax, [F1] */
        e.store(8, Mem.of(X86Reg.RSP, F2), X86Reg.RAX);            /* mov [F2], rax */
        e.load(true, X86Reg.RAX, Mem.of(X86Reg.RBP, 8));           /* mov rax, [rbp + 8] (site + 5) */
        e.lea(X86Reg.RAX, Mem.of(X86Reg.RAX, 1));                  /* lea rax, [rax + 1] (site + 6) */
        e.store(8, Mem.of(X86Reg.RSP, F2 + 8), X86Reg.RAX);        /* mov [F2 + 8], rax */
        e.movabs(X86Reg.RAX, site.function());                  /* movabs rax, function */
        e.store(8, Mem.of(X86Reg.RSP, PT + PtRegsLayout.IP), X86Reg.RAX); /* mov [pt_regs.ip], rax */
        e.lea(X86Reg.RAX, Mem.of(X86Reg.RBP, 16));                 /* lea rax, [rbp + 16] (sp at entry) */
        e.store(8, Mem.of(X86Reg.RSP, PT + PtRegsLayout.SP), X86Reg.RAX); /* mov [pt_regs.sp], rax */
        e.load(true, X86Reg.RAX, Mem.of(X86Reg.RBP, -8));          /* mov rax, [rbp - 8] (flags) */
        e.store(8, Mem.of(X86Reg.RSP, PT + PtRegsLayout.FLAGS), X86Reg.RAX); /* mov [pt_regs.flags], rax */
        e.storeImm(8, Mem.of(X86Reg.RSP, PT + PtRegsLayout.ORIG_AX), 0);  /* mov qword [pt_regs.orig_ax], 0 */
        e.storeImm(8, Mem.of(X86Reg.RSP, PT + PtRegsLayout.CS), PtRegsLayout.USER_CS); /* mov qword [pt_regs.cs], 0x33 */
        e.storeImm(8, Mem.of(X86Reg.RSP, PT + PtRegsLayout.SS), PtRegsLayout.USER_DS); /* mov qword [pt_regs.ss], 0x2b */
        e.movRR(true, X86Reg.RBP, X86Reg.RSP);                     /* mov rbp, rsp (F2) */
        for (Call c : calls) {
            if (c instanceof JitCall) jitCall(e, b, (JitCall) c, ENV, null);
            else upcall(e, (UpcallCall) c, null);
        }
        if (exits != 0) {
            e.load(true, X86Reg.RDI, Mem.of(X86Reg.RBP, savedA));  /* mov rdi, [rbp + saved_a] (A) */
            e.lea(X86Reg.RDI, Mem.of(X86Reg.RDI, 16));             /* lea rdi, [rdi + 16] (the parent's return address slot) */
            e.movabs(X86Reg.RSI, exits);                        /* movabs rsi, exits */
            e.movabs(X86Reg.RAX, ReturnTrampoline.get().pushRoutine()); /* movabs rax, shadow_push */
            e.callR(X86Reg.RAX);                                /* call rax */
        }
        for (int x = 0; x < xmmSaved; x++) movdqu(b, false, x, xmm + 16 * x);  /* movdqu xmmX, [rsp + xmm + 16x] (rsp = F2) */
        // No popfq (~3 ns): at a function's entry no status flag is live (SysV: flags are not
        // preserved across calls) and nothing here changes DF or the system flags.
        for (int i = SAVED.length - 1; i >= 0; i--) {
            e.load(true, SAVED[i], Mem.of(X86Reg.RBP, PT + SAVED_AT[i])); /* mov r, [rbp + pt_regs.r] */
        }
        e.load(true, X86Reg.RBP, Mem.of(X86Reg.RBP, savedA));      /* mov rbp, [rbp + saved_a] (A) */
        int leave = e.position();
        e.leave();                                           /* leave */
        // Before the push of site + 5 (jmp entry) [rsp] is the parent's return address: the walk
        // from there skips the traced function, which has no frame yet either way.
        List<UnwindRow> rows = new ArrayList<>(List.of(
                new UnwindRow(0, afterPush, CfaRule.RETURN_AT_SP),
                new UnwindRow(afterPush, fp, CfaRule.RETURN_AT_SP_PLUS_8),
                new UnwindRow(fp, leave + 1, CfaRule.FRAME_POINTER)));
        int copy = -1;
        if (site.displaced() == null) {
            e.ret();                                         /* ret (to site + 5) */
            rows.add(new UnwindRow(leave + 1, leave + 2, CfaRule.RETURN_AT_SP));
        } else {
            e.lea(X86Reg.RSP, Mem.of(X86Reg.RSP, 8));              /* lea rsp, [rsp + 8] (drop site + 5; flags untouched) */
            copy = e.position();
            rows.add(new UnwindRow(leave + 1, copy, CfaRule.RETURN_AT_SP));
            byte[] displaced = site.displaced().copy(base + copy);
            for (byte x : displaced) b.emit8(x);             /* the displaced instructions, relocated; jmp site + length */
            rows.addAll(copyRows(site.displaced(), copy, displaced.length));
        }
        int tailsAt = e.position();
        int tailsEnd = PerCpuHits.finish(e, b, base, tails);  // run with rbp = A, as the counting they belong to
        if (tailsEnd > tailsAt) rows.add(new UnwindRow(tailsAt, tailsEnd, CfaRule.FRAME_POINTER));
        if (returnSlot >= 0) {
            while (b.size() % 8 != 0) b.emit8(0xcc);        /* int3 padding */
            b.patch32(returnSlot, b.size() - (returnSlot + 4));
            b.emit64(site.site() + PatchSite.LENGTH);        /* .slot: site + 5, data (no row: never run) */
        }
        return new Code(b.toByteArray(), rows, copy);
    }

    /**
     * Rows for the displaced instructions' copy, which runs as the function's own prologue: the
     * entry rule until {@code push rbp}, then until {@code mov rbp, rsp}, then the frame pointer. A
     * prologue that moves rsp otherwise first (another push, {@code sub rsp}) gets no rows from
     * there on (the walk then trusts rbp, as with any code without rows).
     */
    static List<UnwindRow> copyRows(DisplacedInsns d, int copy, int size) {
        List<UnwindRow> rows = new ArrayList<>();
        CfaRule rule = CfaRule.RETURN_AT_SP;
        int from = copy, at = copy;
        byte[] code = d.original();
        for (InsnDecoder.Insn i : d.insns()) {
            int len = i.relSize() == 1 ? (i.flow() == InsnDecoder.Flow.JUMP ? 5 : 6) : i.length();
            CfaRule next = after(rule, code, i);
            at += len;
            if (next != rule) {
                rows.add(new UnwindRow(from, at, rule));
                from = at;
                rule = next;
                if (rule == null) return rows;
            }
        }
        rows.add(new UnwindRow(from, copy + size, rule));
        return rows;
    }

    private static CfaRule after(CfaRule rule, byte[] code, InsnDecoder.Insn i) {
        int op = code[i.offset()] & 0xff;
        boolean pushRbp = i.length() == 1 && op == 0x55;
        boolean movRbpRsp = i.length() == 3 && op == 0x48 && ((code[i.offset() + 1] & 0xff) == 0x89 && (code[i.offset() + 2] & 0xff) == 0xe5
                || (code[i.offset() + 1] & 0xff) == 0x8b && (code[i.offset() + 2] & 0xff) == 0xec);
        if (rule == CfaRule.FRAME_POINTER) return rule;
        if (rule == CfaRule.RETURN_AT_SP && pushRbp) return CfaRule.RETURN_AT_SP_PLUS_8;
        if (rule == CfaRule.RETURN_AT_SP_PLUS_8 && movRbpRsp) return CfaRule.FRAME_POINTER;
        return movesRsp(code, i, op) ? null : rule;
    }

    /** Pushes, pops, {@code sub/add rsp}, {@code leave}, {@code enter}: anything that may move rsp (conservative). */
    private static boolean movesRsp(byte[] code, InsnDecoder.Insn i, int first) {
        int p = i.offset();
        while ((code[p] & 0xf0) == 0x40 || code[p] == 0x66 || code[p] == (byte) 0xf3 || code[p] == (byte) 0xf2) p++;
        int op = code[p] & 0xff;
        if (op >= 0x50 && op <= 0x5f || op == 0x68 || op == 0x6a || op == 0x8f || op == 0x9c || op == 0x9d || op == 0xc8 || op == 0xc9) return true;
        if (i.twoByte()) return false;
        if ((op == 0x81 || op == 0x83 || op == 0x89 || op == 0x8b || op == 0x8d || op == 0x01 || op == 0x29 || op == 0x2b || op == 0x03)
                && p + 1 < i.end()) {
            int modrm = code[p + 1] & 0xff;
            boolean rspOperand = (modrm >> 6) == 3 && ((modrm & 7) == 4 || ((modrm >> 3) & 7) == 4);
            return rspOperand;
        }
        return op == 0xff && p + 1 < i.end() && ((code[p + 1] >> 3) & 7) == 6;      // push r/m
    }

    /**
     * Counts a hit of every direct program, as early as it can: a locked add waits for every older
     * store to drain from the store buffer; after the pt_regs and env stores that wait was half of
     * the trampoline's time.
     */
    private static void countHits(X86Encoder e, List<Call> calls) {
        for (Call c : calls) {
            if (!(c instanceof JitCall)) continue;
            e.movabs(X86Reg.RCX, ((JitCall) c).stats());        /* movabs rcx, stats */
            e.movImm32(X86Reg.RDX, 1);                          /* mov edx, 1 */
            e.aluMR(AluOp.ADD, true, Mem.of(X86Reg.RCX, ProbeStats.HITS), X86Reg.RDX, true); /* lock add [rcx + hits], rdx */
        }
    }

    /**
     * Builds the env block at [rbp + ENV] from the template's words, stored as constants (a
     * {@code rep movsq} of the ~34 qwords from the template cost ~10 ns of start-up, a third of a
     * hit), points its pt_regs region at this hit's, calls the program.
     */
    private static void jitCall(X86Encoder e, CodeBuffer b, JitCall c, int envAt, X86Reg ptRegs) {
        long[] w = c.envWords();
        e.aluRR(AluOp.XOR, false, X86Reg.RDX, X86Reg.RDX);         /* xor edx, edx */
        for (int i = 0; i < w.length; i++) {
            int off = i * 8;
            if (!c.stored().get(i)) continue;                   // a word this program's code never reads
            if (off == EnvLayout.REGIONS || off == EnvLayout.REGIONS + EnvLayout.REGION_END
                    || off == EnvLayout.FAST_R_START || off == EnvLayout.FAST_R_LAST) continue;   // this hit's pt_regs, below
            if (w[i] == 0) {
                e.store(8, env(envAt, off), X86Reg.RDX);        /* mov [rbp + env + off], rdx (0) */
            } else if (w[i] == (int) w[i]) {
                e.storeImm(8, env(envAt, off), (int) w[i]);  /* mov qword [rbp + env + off], imm32 */
            } else {
                e.movabs(X86Reg.RAX, w[i]);                     /* movabs rax, value */
                e.store(8, env(envAt, off), X86Reg.RAX);        /* mov [rbp + env + off], rax */
            }
        }
        if (ptRegs == null) e.lea(X86Reg.RAX, Mem.of(X86Reg.RBP, PT)); /* lea rax, [rbp + pt_regs] */
        else e.movRR(true, X86Reg.RAX, ptRegs);                 /* mov rax, pt_regs (the return trampoline's) */
        if (c.stored().get(EnvLayout.REGIONS / 8)) {
            e.store(8, env(envAt, EnvLayout.REGIONS), X86Reg.RAX);  /* mov [env.regions[0].start], rax */
            e.store(8, env(envAt, EnvLayout.FAST_R_START), X86Reg.RAX); /* mov [env.fast_r_start], rax */
            e.lea(X86Reg.RCX, Mem.of(X86Reg.RAX, PtRegsLayout.SIZE));  /* lea rcx, [rax + 168] */
            e.store(8, env(envAt, EnvLayout.REGIONS + EnvLayout.REGION_END), X86Reg.RCX); /* mov [env.regions[0].end], rcx */
            e.lea(X86Reg.RCX, Mem.of(X86Reg.RAX, PtRegsLayout.SIZE - 8)); /* lea rcx, [rax + 160] */
            e.store(8, env(envAt, EnvLayout.FAST_R_LAST), X86Reg.RCX); /* mov [env.fast_r_last], rcx */
        }
        e.movRR(true, X86Reg.RDI, X86Reg.RAX);                     /* mov rdi, rax (ctx) */
        e.lea(X86Reg.RSI, Mem.of(X86Reg.RBP, envAt));              /* lea rsi, [rbp + env] */
        e.movabs(X86Reg.RAX, c.entry());                        /* movabs rax, entry */
        e.callR(X86Reg.RAX);                                    /* call rax */
        e.movabs(X86Reg.RCX, c.stats());                        /* movabs rcx, stats */
        e.movImm32(X86Reg.RDX, 1);                              /* mov edx, 1 */
        e.load(true, X86Reg.RAX, env(envAt, EnvLayout.STATUS)); /* mov rax, [env.status] */
        e.aluRI(AluOp.SUB, true, X86Reg.RAX, 1);                /* sub rax, 1 */
        e.aluRI(AluOp.CMP, true, X86Reg.RAX, 1);                /* cmp rax, 1 (native or helper error) */
        int error = e.jccForward8(Cond.BE);                  /* jbe .error */
        e.aluRI(AluOp.CMP, true, X86Reg.RAX, (int) EnvLayout.STATUS_NO_JAVA - 1); /* cmp rax, NO_JAVA - 1 */
        int ok = e.jccForward8(Cond.NE);                     /* jne .ok */
        e.aluMR(AluOp.ADD, true, Mem.of(X86Reg.RCX, ProbeStats.MISSED), X86Reg.RDX, true); /* lock add [rcx + missed], rdx (a thread that may not run Java) */
        int missed = e.jmpForward8();                        /* jmp .ok */
        e.bind(error);                                       /* .error: */
        e.aluMR(AluOp.ADD, true, Mem.of(X86Reg.RCX, ProbeStats.ERRORS), X86Reg.RDX, true); /* lock add [rcx + errors], rdx */
        copy(e, envAt, EnvLayout.STATUS, ProbeStats.LAST_STATUS);
        copy(e, envAt, EnvLayout.ERR_KIND, ProbeStats.LAST_KIND);
        copy(e, envAt, EnvLayout.ERR_DESC, ProbeStats.LAST_DESC);
        copy(e, envAt, EnvLayout.ERR_ADDR, ProbeStats.LAST_ADDR);
        e.bind(ok);                                          /* .ok: */
        e.bind(missed);
    }

    private static void copy(X86Encoder e, int envAt, int envField, int statsField) {
        e.load(true, X86Reg.RAX, env(envAt, envField));                /* mov rax, [env.field] */
        e.store(8, Mem.of(X86Reg.RCX, statsField), X86Reg.RAX);    /* mov [rcx + last], rax */
    }

    /** {@code movdqu [rsp + disp32], xmmN} (store) or {@code movdqu xmmN, [rsp + disp32]}: the encoder's SSE forms take no SIB base. */
    static void movdqu(CodeBuffer b, boolean store, int xmmN, int disp) {
        b.emit8(0xf3);                                       /* F3 prefix */
        if (xmmN >= 8) b.emit8(0x44);                        /* REX.R */
        b.emit8(0x0f); b.emit8(store ? 0x7f : 0x6f);         /* movdqu m128, xmm | movdqu xmm, m128 */
        b.emit8(0x84 | ((xmmN & 7) << 3));                   /* ModRM: mod 10, reg xmm, rm 100 (SIB) */
        b.emit8(0x24);                                       /* SIB: base rsp, no index */
        b.emit32(disp);
    }

    private static Mem env(int envAt, int field) { return Mem.of(X86Reg.RBP, envAt + field); }

    private static void upcall(X86Encoder e, UpcallCall c, X86Reg ptRegs) {
        if (ptRegs == null) e.lea(X86Reg.RDI, Mem.of(X86Reg.RBP, PT)); /* lea rdi, [rbp + pt_regs] */
        else e.movRR(true, X86Reg.RDI, ptRegs);                 /* mov rdi, pt_regs */
        e.movabs(X86Reg.RSI, c.link());                         /* movabs rsi, link id */
        e.movabs(X86Reg.RDX, c.missed());                       /* movabs rdx, &missed */
        e.movabs(X86Reg.RAX, c.closure());                      /* movabs rax, upcall */
        e.callR(X86Reg.RAX);                                    /* call rax (rsp is 16-aligned); Java counts the hit if it runs */
    }

    /**
     * The exit handler of a return probe, {@code void handler(pt_regs *)}, which the return
     * trampoline calls with the registers at the return: counts the direct programs' hits and
     * runs every program as the entry trampoline does (env block on its own frame, rbx = the pt_regs).
     * A standard rbp frame, so walks from inside a program reach the return trampoline's frame,
     * whose return address is by then the real one.
     */
    static Code emitExit(List<Call> calls) {
        int envBytes = 0;
        for (Call c : calls) if (c instanceof JitCall) envBytes = Math.max(envBytes, ((JitCall) c).envBytes());
        int frame = ((envBytes + 15) & ~15) + 8;            // after push rbp, push rbx: rsp 16-aligned for the calls
        int envAt = -8 - frame;
        CodeBuffer b = new CodeBuffer();
        X86Encoder e = new X86Encoder(b);
        e.push(X86Reg.RBP);                                     /* push rbp */
        int afterPush = e.position();
        e.movRR(true, X86Reg.RBP, X86Reg.RSP);                     /* mov rbp, rsp */
        int fp = e.position();
        e.push(X86Reg.RBX);                                     /* push rbx */
        e.aluRI(AluOp.SUB, true, X86Reg.RSP, frame);            /* sub rsp, frame (env at its bottom) */
        e.movRR(true, X86Reg.RBX, X86Reg.RDI);                     /* mov rbx, rdi (pt_regs) */
        countHits(e, calls);
        for (Call c : calls) {
            if (c instanceof JitCall) jitCall(e, b, (JitCall) c, envAt, X86Reg.RBX);
            else upcall(e, (UpcallCall) c, X86Reg.RBX);
        }
        e.load(true, X86Reg.RBX, Mem.of(X86Reg.RBP, -8));          /* mov rbx, [rbp - 8] */
        int leave = e.position();
        e.leave();                                           /* leave */
        e.ret();                                             /* ret */
        List<UnwindRow> rows = List.of(
                new UnwindRow(0, afterPush, CfaRule.RETURN_AT_SP),
                new UnwindRow(afterPush, fp, CfaRule.RETURN_AT_SP_PLUS_8),
                new UnwindRow(fp, leave + 1, CfaRule.FRAME_POINTER),
                new UnwindRow(leave + 1, leave + 2, CfaRule.RETURN_AT_SP));
        return new Code(b.toByteArray(), rows, -1);
    }
}
