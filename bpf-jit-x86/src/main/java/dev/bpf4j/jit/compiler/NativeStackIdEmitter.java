package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.CodeBuffer;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.Shift;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.maps.Errno;
import dev.bpf4j.maps.StackTraceMap;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.runtime.Limits;
import dev.bpf4j.runtime.PtRegs;
import dev.bpf4j.stack.ConfirmedSteps;
import dev.bpf4j.stack.Jhash;
import dev.bpf4j.stack.StackFlags;
import dev.bpf4j.stack.StackIds;
import dev.bpf4j.stack.StackMapHandles;
import dev.bpf4j.stack.ThreadStackTops;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code bpf_get_stackid} as native code for JIT programs run directly by a probe trampoline (r12's
 * env block has an OWNER): the Java helper's result, computed without leaving native code, or a tail
 * jump to the Java helper (through the bridge, as a Java helper call) wherever this code cannot be
 * sure to compute the same. Three parts:
 * <ol>
 *   <li><b>walk</b> from the hit's pt_regs (the env's first region) over this thread's stack, reading
 *       only {@code [sp, top - 8]} as {@code LiveMemoryView} does, repeating for each frame the step
 *       {@link ConfirmedSteps} holds for it; a frame it has no step for goes to Java;</li>
 *   <li><b>hash</b>: {@code jhash2} of the ips after skip, as {@link Jhash};</li>
 *   <li><b>bucket</b>: {@code __bpf_get_stackid}'s rules on the map's off-heap storage
 *       ({@link StackTraceMap}), with the same atomic free list and bucket exchange as {@link StackIds}.</li>
 * </ol>
 * {@code bpf_get_stack} ({@link #code(Targets, boolean)}) shares the walk, then copies and zero-fills.
 * Goes to Java as well: a run not started by a trampoline, flags outside skip/USER/FAST/REUSE, a
 * handle {@link StackMapHandles} does not know (never dereferenced), a thread whose stack bounds
 * {@link ThreadStackTops} has not published, a start ip of 0 or sp off the thread's stack.
 *
 * <p>Frame: {@code push rbp; mov rbp, rsp; push rbx, r13, r14, r15; sub rsp, FRAME}, the collected ips
 * at {@code [rsp, rsp + 1016)}, the caller's r1-r5 and a few words above them.
 */
public final class NativeStackIdEmitter {
    private NativeStackIdEmitter() {}

    /** Where the generated code's frame is, for its unwind rows (as {@link NativeFormEmitter.Function}), and where its tail after {@code leave} begins. */
    public record Code(byte[] code, int pushed, int framed, int afterLeave) {}

    /** Addresses the code is built against (all live for the process, or for a map's life in the tables). */
    public record Targets(long steps, long handles, int stackKey, long getspecific, long bridge, long counters) {}

    // frame slots, from rsp
    private static final int IPS = 0, SAVED_ARGS = 1024, MAX_DEPTH = SAVED_ARGS + 40, TRACE_NR = MAX_DEPTH + 8, SKIP = TRACE_NR + 8;
    private static final int FRAME = 1104;   // 16-byte multiple: rsp stays aligned after the five pushes
    private static final X86Reg[] ARGS = {X86Reg.RDI, X86Reg.RSI, X86Reg.RDX, X86Reg.RCX, X86Reg.R8};
    /** Counters at Targets.counters: native results, walks handed to Java. */
    public static final int NATIVE_RESULTS = 0, FALLBACKS = 8;

    private static final class Labels {
        final List<Integer> jumps = new ArrayList<>();
        void add(int patch) { jumps.add(patch); }
        void bind(X86Encoder e) { for (int j : jumps) e.bind32(j); }
    }

    public static Code code(Targets t) { return code(t, false); }

    /** {@code bpf_get_stack} (helper 67) instead when {@code stack}: the same walk, then copy and zero-fill ({@link #copyOut}). */
    public static Code code(Targets t, boolean stack) {
        CodeBuffer buf = new CodeBuffer();
        X86Encoder e = new X86Encoder(buf);
        Labels fallback = new Labels(), done = new Labels(), result = new Labels();
        e.push(X86Reg.RBP);                                                      /* push rbp */
        int pushed = e.position();
        e.movRR(true, X86Reg.RBP, X86Reg.RSP);                                   /* mov rbp, rsp */
        int framed = e.position();
        e.push(X86Reg.RBX);                                                      /* push rbx */
        e.push(X86Reg.R13);                                                      /* push r13 */
        e.push(X86Reg.R14);                                                      /* push r14 */
        e.push(X86Reg.R15);                                                      /* push r15 */
        e.aluRI(AluOp.SUB, true, X86Reg.RSP, FRAME);                             /* sub rsp, FRAME */
        for (int i = 0; i < ARGS.length; i++) e.store(8, Mem.of(X86Reg.RSP, SAVED_ARGS + 8 * i), ARGS[i]); /* mov [rsp + args + 8i], r(i+1) */

        checks(e, t, fallback, stack);
        walk(e, t, fallback, done, stack);
        done.bind(e);                                                            /* .done: rbx = ips collected */
        if (stack) copyOut(e, result);
        else bucket(e, result);
        result.bind(e);                                                          /* .result: rax = r0 */
        count(e, t.counters() + NATIVE_RESULTS);
        e.aluRR(AluOp.XOR, false, X86Reg.R10, X86Reg.R10);                       /* xor r10d, r10d (return, not to Java) */
        int exit = e.jmpForward32();                                             /* jmp .exit */

        fallback.bind(e);                                                        /* .fallback: */
        count(e, t.counters() + FALLBACKS);
        for (int i = 0; i < ARGS.length; i++) e.load(true, ARGS[i], Mem.of(X86Reg.RSP, SAVED_ARGS + 8 * i)); /* mov r(i+1), [rsp + args + 8i] */
        e.movImm32(X86Reg.R10, 1);                                               /* mov r10d, 1 (to Java) */
        e.bind32(exit);                                                          /* .exit: */
        e.lea(X86Reg.RSP, Mem.of(X86Reg.RBP, -32));                              /* lea rsp, [rbp - 32] */
        e.pop(X86Reg.R15);                                                       /* pop r15 */
        e.pop(X86Reg.R14);                                                       /* pop r14 */
        e.pop(X86Reg.R13);                                                       /* pop r13 */
        e.pop(X86Reg.RBX);                                                       /* pop rbx */
        e.leave();                                                               /* leave */
        int afterLeave = e.position();
        e.testRR(false, X86Reg.R10, X86Reg.R10);                                 /* test r10d, r10d */
        int toJava = e.jccForward8(Cond.NE);                                     /* jne .java */
        e.ret();                                                                 /* ret */
        e.bind(toJava);                                                          /* .java: the Java helper, as CallEmitter calls it */
        e.storeImm(8, Mem.of(RegMap.ENV, EnvLayout.HELPER_ID), stack ? HelperIds.GET_STACK : HelperIds.GET_STACKID); /* mov qword [r12 + HELPER_ID], id */
        e.movRR(true, RegMap.BRIDGE_ENV, RegMap.ENV);                            /* mov r9, r12 */
        e.movabs(X86Reg.R11, t.bridge());                                        /* movabs r11, bridge */
        e.jmpR(X86Reg.R11);                                                      /* jmp r11 (it returns to our caller) */
        return new Code(buf.toByteArray(), pushed, framed, afterLeave);
    }

    /** lock add qword [counter], 1. Clobbers rcx, rdx. */
    private static void count(X86Encoder e, long counter) {
        e.movabs(X86Reg.RDX, counter);                                           /* movabs rdx, counter */
        e.movImm32(X86Reg.RCX, 1);                                               /* mov ecx, 1 */
        e.lockXadd(true, Mem.of(X86Reg.RDX, 0), X86Reg.RCX);                     /* lock xadd [rdx], rcx */
    }

    /**
     * The cases native code leaves to Java; on the way r15 = the map's handle entry, r8 = the thread's
     * stack {low, high} record.
     */
    private static void checks(X86Encoder e, Targets t, Labels fallback, boolean stack) {
        e.aluMI(AluOp.CMP, true, Mem.of(RegMap.ENV, EnvLayout.OWNER), 0);        /* cmp qword [r12 + OWNER], 0 */
        fallback.add(e.jccForward32(Cond.E));                                    /* je .fallback (not a trampoline's run) */
        if (stack) {
            stackChecks(e, fallback);
            bounds(e, t, fallback);
            return;
        }
        e.testRI(true, X86Reg.RDX, (int) ~(StackFlags.BPF_F_SKIP_FIELD_MASK | StackFlags.BPF_F_USER_STACK
                | StackFlags.BPF_F_FAST_STACK_CMP | StackFlags.BPF_F_REUSE_STACKID)); /* test rdx, ~valid flags */
        fallback.add(e.jccForward32(Cond.NE));                                   /* jne .fallback (Java says -EINVAL) */
        e.movabs(X86Reg.R15, t.handles());                                       /* movabs r15, handles */
        int scan = e.position();                                                 /* .scan: */
        e.load(true, X86Reg.RAX, Mem.of(X86Reg.R15, StackMapHandles.HANDLE));    /* mov rax, [r15] */
        e.testRR(true, X86Reg.RAX, X86Reg.RAX);                                  /* test rax, rax */
        fallback.add(e.jccForward32(Cond.E));                                    /* je .fallback (unknown handle) */
        e.aluRR(AluOp.CMP, true, X86Reg.RAX, X86Reg.RSI);                        /* cmp rax, rsi */
        int found = e.jccForward8(Cond.E);                                       /* je .found */
        e.aluRI(AluOp.ADD, true, X86Reg.R15, StackMapHandles.ENTRY);             /* add r15, ENTRY */
        e.jmpTo(scan);                                                           /* jmp .scan */
        e.bind(found);                                                           /* .found: */
        bounds(e, t, fallback);
    }

    /**
     * bpf_get_stack's cases left to Java: flags beyond skip and USER (BUILD_ID is -EINVAL there),
     * a size (low 32 bits of r3) of 0, not a multiple of 8 or over 512, and a buffer outside the
     * calling function's 512-byte frame ({@code [CUR_RBP - 512, CUR_RBP - size]}, which the Java
     * helper's argument check always accepts).
     */
    private static void stackChecks(X86Encoder e, Labels fallback) {
        e.testRI(true, X86Reg.RCX, (int) ~(StackFlags.BPF_F_SKIP_FIELD_MASK | StackFlags.BPF_F_USER_STACK)); /* test rcx, ~(skip | USER) */
        fallback.add(e.jccForward32(Cond.NE));                                   /* jne .fallback */
        e.movRR(false, X86Reg.RAX, X86Reg.RDX);                                  /* mov eax, edx (size: the low 32 bits) */
        e.store(8, Mem.of(X86Reg.RSP, SAVED_ARGS + 16), X86Reg.RAX);             /* mov [saved r3], rax (the size from here on) */
        e.testRI(false, X86Reg.RAX, 7);                                          /* test eax, 7 */
        fallback.add(e.jccForward32(Cond.NE));                                   /* jne .fallback (-EINVAL in Java) */
        e.testRR(false, X86Reg.RAX, X86Reg.RAX);                                 /* test eax, eax */
        fallback.add(e.jccForward32(Cond.E));                                    /* je .fallback (size 0) */
        e.aluRI(AluOp.CMP, false, X86Reg.RAX, Limits.STACK_SIZE);                /* cmp eax, 512 */
        fallback.add(e.jccForward32(Cond.A));                                    /* ja .fallback */
        e.load(true, X86Reg.R11, Mem.of(RegMap.ENV, EnvLayout.CUR_RBP));         /* mov r11, [r12 + CUR_RBP] */
        e.aluRR(AluOp.SUB, true, X86Reg.R11, X86Reg.RSI);                        /* sub r11, rsi (rbp - buf) */
        e.aluRR(AluOp.CMP, true, X86Reg.R11, X86Reg.RAX);                        /* cmp r11, rax */
        fallback.add(e.jccForward32(Cond.L));                                    /* jl .fallback (the buffer's end past rbp) */
        e.aluRI(AluOp.CMP, true, X86Reg.R11, Limits.STACK_SIZE);                 /* cmp r11, 512 */
        fallback.add(e.jccForward32(Cond.G));                                    /* jg .fallback (below the frame) */
    }

    /** r8 = this thread's published stack bounds, else to Java. */
    private static void bounds(X86Encoder e, Targets t, Labels fallback) {
        e.movImm32(X86Reg.RDI, t.stackKey());                                    /* mov edi, key */
        e.movabs(X86Reg.RAX, t.getspecific());                                   /* movabs rax, pthread_getspecific */
        e.callR(X86Reg.RAX);                                                     /* call rax */
        e.testRR(true, X86Reg.RAX, X86Reg.RAX);                                  /* test rax, rax */
        fallback.add(e.jccForward32(Cond.E));                                    /* je .fallback (bounds not published) */
        e.movRR(true, X86Reg.R8, X86Reg.RAX);                                    /* mov r8, rax */
    }

    /**
     * Collects the ips into [rsp + 8i), rbx = how many. Registers: r13 = sp, r14 = bp, r10 = the
     * first sp (the view's low end), r9 = top - 8 - low (8 bytes at a are readable when
     * a - low &lt;=u r9, as {@code LiveMemoryView.contains}), rdi = the key looked up, rsi = its slot;
     * a step leaves rax = ra, rcx = next sp, rdx = next bp, r11 = "last" (a frame-pointer chain that
     * stops rising: keep ra, then stop, as {@code Unwinder}).
     */
    private static void walk(X86Encoder e, Targets t, Labels fallback, Labels done, boolean stack) {
        e.load(true, X86Reg.RAX, Mem.of(RegMap.ENV, EnvLayout.REGIONS));        /* mov rax, [r12 + REGIONS] (the pt_regs) */
        e.load(true, X86Reg.RDI, Mem.of(X86Reg.RAX, PtRegs.OFF_IP));             /* mov rdi, [rax + ip] */
        e.load(true, X86Reg.R13, Mem.of(X86Reg.RAX, PtRegs.OFF_SP));             /* mov r13, [rax + sp] */
        e.load(true, X86Reg.R14, Mem.of(X86Reg.RAX, PtRegs.OFF_BP));             /* mov r14, [rax + bp] */
        e.testRR(true, X86Reg.RDI, X86Reg.RDI);                                  /* test rdi, rdi */
        fallback.add(e.jccForward32(Cond.E));                                    /* je .fallback (ip 0) */
        // sp inside [low, high) of this thread (ThreadStack.viewFrom), 8 bytes at least below the top
        e.aluRM(AluOp.CMP, true, X86Reg.R13, Mem.of(X86Reg.R8, ThreadStackTops.LOW)); /* cmp r13, [r8 + low] */
        fallback.add(e.jccForward32(Cond.B));                                    /* jb .fallback */
        e.load(true, X86Reg.R9, Mem.of(X86Reg.R8, ThreadStackTops.HIGH));        /* mov r9, [r8 + high] */
        e.aluRR(AluOp.CMP, true, X86Reg.R13, X86Reg.R9);                         /* cmp r13, r9 */
        fallback.add(e.jccForward32(Cond.AE));                                   /* jae .fallback (sp at or past the top) */
        e.aluRR(AluOp.SUB, true, X86Reg.R9, X86Reg.R13);                         /* sub r9, r13 (high - sp) */
        e.aluRI(AluOp.CMP, true, X86Reg.R9, 8);                                  /* cmp r9, 8 */
        fallback.add(e.jccForward32(Cond.B));                                    /* jb .fallback */
        e.aluRI(AluOp.SUB, true, X86Reg.R9, 8);                                  /* sub r9, 8 (top - 8 - low) */
        e.movRR(true, X86Reg.R10, X86Reg.R13);                                   /* mov r10, r13 (low) */
        // max depth = min(value_size / 8 (get_stack: size / 8) + skip, 127)
        e.load(true, X86Reg.RCX, Mem.of(X86Reg.RSP, SAVED_ARGS + (stack ? 24 : 16))); /* mov rcx, [saved flags] */
        e.aluRI(AluOp.AND, false, X86Reg.RCX, (int) StackFlags.BPF_F_SKIP_FIELD_MASK); /* and ecx, 0xff (skip) */
        e.store(8, Mem.of(X86Reg.RSP, SKIP), X86Reg.RCX);                        /* mov [rsp + SKIP], rcx */
        if (stack) {
            e.load(true, X86Reg.RAX, Mem.of(X86Reg.RSP, SAVED_ARGS + 16));      /* mov rax, [saved size] */
            e.shiftImm(Shift.SHR, false, X86Reg.RAX, 3);                         /* shr eax, 3 */
        } else {
            e.load(false, X86Reg.RAX, Mem.of(X86Reg.R15, StackMapHandles.DEPTH)); /* mov eax, [r15 + DEPTH] */
        }
        e.aluRR(AluOp.ADD, false, X86Reg.RAX, X86Reg.RCX);                       /* add eax, ecx */
        e.aluRI(AluOp.CMP, false, X86Reg.RAX, StackFlags.PERF_EVENT_MAX_STACK);  /* cmp eax, 127 */
        int small = e.jccForward8(Cond.BE);                                      /* jbe .small */
        e.movImm32(X86Reg.RAX, StackFlags.PERF_EVENT_MAX_STACK);                 /* mov eax, 127 */
        e.bind(small);                                                           /* .small: */
        e.store(8, Mem.of(X86Reg.RSP, MAX_DEPTH), X86Reg.RAX);                   /* mov [rsp + MAX_DEPTH], rax */
        // the first frame: ip as it is, its step looked up at ip | FIRST
        e.store(8, Mem.of(X86Reg.RSP, IPS), X86Reg.RDI);                         /* mov [rsp], rdi (ips[0]) */
        e.movImm32(X86Reg.RBX, 1);                                               /* mov ebx, 1 */
        e.movabs(X86Reg.RAX, ConfirmedSteps.FIRST);                              /* movabs rax, FIRST */
        e.aluRR(AluOp.OR, true, X86Reg.RDI, X86Reg.RAX);                         /* or rdi, rax */

        int step = e.position();                                                 /* .step: rdi = key of this frame's step */
        e.aluRM(AluOp.CMP, true, X86Reg.RBX, Mem.of(X86Reg.RSP, MAX_DEPTH));     /* cmp rbx, [rsp + MAX_DEPTH] */
        done.add(e.jccForward32(Cond.AE));                                       /* jae .done */
        findStep(e, t, fallback);                                                /* rsi = the step's slot */
        e.loadZx8(X86Reg.RAX, Mem.of(X86Reg.RSI, ConfirmedSteps.KIND));          /* movzx eax, byte [rsi + KIND] */
        e.aluRI(AluOp.CMP, false, X86Reg.RAX, ConfirmedSteps.KIND_OUTERMOST);    /* cmp eax, OUTERMOST */
        done.add(e.jccForward32(Cond.E));                                        /* je .done (the thread's first frame) */
        e.aluRI(AluOp.CMP, false, X86Reg.RAX, ConfirmedSteps.KIND_CFI);          /* cmp eax, CFI */
        int cfi = e.jccForward32(Cond.E);                                        /* je .cfi */

        // frame-pointer step (Unwinder's default rule)
        e.testRR(true, X86Reg.R14, X86Reg.R14);                                  /* test r14, r14 */
        done.add(e.jccForward32(Cond.E));                                        /* je .done (bp 0) */
        e.aluRR(AluOp.CMP, true, X86Reg.R14, X86Reg.R13);                        /* cmp r14, r13 */
        done.add(e.jccForward32(Cond.B));                                        /* jb .done (bp below sp) */
        readable(e, X86Reg.R14, 0, done);
        readable(e, X86Reg.R14, 8, done);
        e.load(true, X86Reg.RDX, Mem.of(X86Reg.R14, 0));                         /* mov rdx, [r14] (next bp) */
        e.load(true, X86Reg.RAX, Mem.of(X86Reg.R14, 8));                         /* mov rax, [r14 + 8] (ra) */
        e.lea(X86Reg.RCX, Mem.of(X86Reg.R14, 16));                               /* lea rcx, [r14 + 16] (next sp) */
        e.aluRR(AluOp.XOR, false, X86Reg.R11, X86Reg.R11);                       /* xor r11d, r11d */
        e.testRR(true, X86Reg.RDX, X86Reg.RDX);                                  /* test rdx, rdx */
        int chainEnd = e.jccForward8(Cond.E);                                    /* je .return (0 ends the chain: not "last") */
        e.aluRR(AluOp.CMP, true, X86Reg.RDX, X86Reg.R14);                        /* cmp rdx, r14 */
        int rises = e.jccForward8(Cond.A);                                       /* ja .return */
        e.movImm32(X86Reg.R11, 1);                                               /* mov r11d, 1 (last) */
        e.bind(chainEnd);
        e.bind(rises);
        int fpDone = e.jmpForward32();                                           /* jmp .return */

        e.bind32(cfi);                                                           /* .cfi: */
        cfiStep(e, done);

        e.bind32(fpDone);                                                        /* .return: */
        e.testRR(true, X86Reg.RAX, X86Reg.RAX);                                  /* test rax, rax */
        done.add(e.jccForward32(Cond.E));                                        /* je .done (ra 0) */
        e.movRR(true, X86Reg.R13, X86Reg.RCX);                                   /* mov r13, rcx */
        e.movRR(true, X86Reg.R14, X86Reg.RDX);                                   /* mov r14, rdx */
        e.lea(X86Reg.RDI, Mem.of(X86Reg.RAX, -1));                               /* lea rdi, [rax - 1] (a return's lookup address) */
        findStep(e, t, fallback);                                                /* confirmed: ra is code, not a return trampoline */
        e.movRR(true, X86Reg.RCX, X86Reg.RBX);                                   /* mov rcx, rbx */
        e.shiftImm(Shift.SHL, true, X86Reg.RCX, 3);                              /* shl rcx, 3 */
        e.aluRR(AluOp.ADD, true, X86Reg.RCX, X86Reg.RSP);                        /* add rcx, rsp */
        e.store(8, Mem.of(X86Reg.RCX, IPS), X86Reg.RAX);                         /* mov [rcx], rax (ips[nr] = ra) */
        e.aluRI(AluOp.ADD, true, X86Reg.RBX, 1);                                 /* add rbx, 1 */
        e.testRR(false, X86Reg.R11, X86Reg.R11);                                 /* test r11d, r11d */
        done.add(e.jccForward32(Cond.NE));                                       /* jne .done (last) */
        e.jmpTo(step);                                                           /* jmp .step */
    }

    /**
     * CfiStep.step on a row CFA = (rsp or rbp) + offset: rcx = CFA, which must rise above sp; ra at
     * CFA + ra offset; the caller's rbp by the slot's rule. Ends at .return with r11 = 0.
     */
    private static void cfiStep(X86Encoder e, Labels done) {
        e.movRR(true, X86Reg.RCX, X86Reg.R13);                                   /* mov rcx, r13 */
        e.loadZx8(X86Reg.RDX, Mem.of(X86Reg.RSI, ConfirmedSteps.CFA_FROM_RBP));  /* movzx edx, byte [rsi + CFA_FROM_RBP] */
        e.testRR(false, X86Reg.RDX, X86Reg.RDX);                                 /* test edx, edx */
        int fromSp = e.jccForward8(Cond.E);                                      /* je .fromSp */
        e.movRR(true, X86Reg.RCX, X86Reg.R14);                                   /* mov rcx, r14 */
        e.bind(fromSp);                                                          /* .fromSp: */
        e.loadSx32(X86Reg.RDX, Mem.of(X86Reg.RSI, ConfirmedSteps.CFA_OFFSET));   /* movsxd rdx, [rsi + CFA_OFFSET] */
        e.aluRR(AluOp.ADD, true, X86Reg.RCX, X86Reg.RDX);                        /* add rcx, rdx (CFA) */
        e.aluRR(AluOp.CMP, true, X86Reg.RCX, X86Reg.R13);                        /* cmp rcx, r13 */
        done.add(e.jccForward32(Cond.BE));                                       /* jbe .done (CFA not above sp: garbage) */
        e.loadSx32(X86Reg.RDX, Mem.of(X86Reg.RSI, ConfirmedSteps.RA_OFFSET));    /* movsxd rdx, [rsi + RA_OFFSET] */
        e.aluRR(AluOp.ADD, true, X86Reg.RDX, X86Reg.RCX);                        /* add rdx, rcx (where ra is) */
        readable(e, X86Reg.RDX, 0, done);
        e.load(true, X86Reg.RAX, Mem.of(X86Reg.RDX, 0));                         /* mov rax, [rdx] (ra) */
        e.loadZx8(X86Reg.R11, Mem.of(X86Reg.RSI, ConfirmedSteps.BP_RULE));       /* movzx r11d, byte [rsi + BP_RULE] */
        e.movRR(true, X86Reg.RDX, X86Reg.R14);                                   /* mov rdx, r14 (SAME) */
        e.testRR(false, X86Reg.R11, X86Reg.R11);                                 /* test r11d, r11d */
        Labels set = new Labels();
        set.add(e.jccForward32(Cond.E));                                         /* je .bpSet */
        e.aluRR(AluOp.XOR, false, X86Reg.RDX, X86Reg.RDX);                       /* xor edx, edx (UNDEFINED) */
        e.aluRI(AluOp.CMP, false, X86Reg.R11, 1);                                /* cmp r11d, 1 */
        set.add(e.jccForward32(Cond.E));                                         /* je .bpSet */
        e.movRR(true, X86Reg.RDX, X86Reg.R13);                                   /* mov rdx, r13 (SP) */
        e.aluRI(AluOp.CMP, false, X86Reg.R11, 4);                                /* cmp r11d, 4 */
        set.add(e.jccForward32(Cond.E));                                         /* je .bpSet */
        e.loadSx32(X86Reg.RDX, Mem.of(X86Reg.RSI, ConfirmedSteps.BP_OFFSET));    /* movsxd rdx, [rsi + BP_OFFSET] */
        e.aluRR(AluOp.ADD, true, X86Reg.RDX, X86Reg.RCX);                        /* add rdx, rcx (CFA + offset) */
        e.aluRI(AluOp.CMP, false, X86Reg.R11, 3);                                /* cmp r11d, 3 */
        set.add(e.jccForward32(Cond.E));                                         /* je .bpSet (CFA_OFFSET: the value itself) */
        readable(e, X86Reg.RDX, 0, done);                                        /* AT_CFA_OFFSET: read it */
        e.load(true, X86Reg.RDX, Mem.of(X86Reg.RDX, 0));                         /* mov rdx, [rdx] */
        set.bind(e);                                                             /* .bpSet: */
        e.aluRR(AluOp.XOR, false, X86Reg.R11, X86Reg.R11);                       /* xor r11d, r11d (never "last") */
    }

    /** To {@code out} unless the 8 bytes at {@code base + disp} lie in the view ({@code a - low <=u r9}). Clobbers r11. */
    private static void readable(X86Encoder e, X86Reg base, int disp, Labels out) {
        e.lea(X86Reg.R11, Mem.of(base, disp));                                   /* lea r11, [base + disp] */
        e.aluRR(AluOp.SUB, true, X86Reg.R11, X86Reg.R10);                        /* sub r11, r10 (- low) */
        e.aluRR(AluOp.CMP, true, X86Reg.R11, X86Reg.R9);                         /* cmp r11, r9 */
        out.add(e.jccForward32(Cond.A));                                         /* ja .done (outside the view) */
    }

    /**
     * rsi = the slot of key rdi in the confirmed steps (ConfirmedSteps.find's linear probing from the
     * Fibonacci hash), or to {@code absent}. Clobbers rcx, rdx.
     */
    private static void findStep(X86Encoder e, Targets t, Labels absent) {
        e.movabs(X86Reg.RCX, ConfirmedSteps.HASH);                               /* movabs rcx, HASH */
        e.imulRR(true, X86Reg.RCX, X86Reg.RDI);                                  /* imul rcx, rdi */
        e.shiftImm(Shift.SHR, true, X86Reg.RCX, 64 - ConfirmedSteps.LOG2_SLOTS); /* shr rcx, 64 - log2 slots */
        int probe = e.position();                                                /* .probe: */
        e.movRR(true, X86Reg.RSI, X86Reg.RCX);                                   /* mov rsi, rcx */
        e.shiftImm(Shift.SHL, true, X86Reg.RSI, Integer.numberOfTrailingZeros(ConfirmedSteps.SLOT)); /* shl rsi, log2 SLOT */
        e.movabs(X86Reg.RDX, t.steps());                                         /* movabs rdx, steps */
        e.aluRR(AluOp.ADD, true, X86Reg.RSI, X86Reg.RDX);                        /* add rsi, rdx */
        e.load(true, X86Reg.RDX, Mem.of(X86Reg.RSI, ConfirmedSteps.KEY));        /* mov rdx, [rsi] */
        e.aluRR(AluOp.CMP, true, X86Reg.RDX, X86Reg.RDI);                        /* cmp rdx, rdi */
        int found = e.jccForward32(Cond.E);                                      /* je .found */
        e.testRR(true, X86Reg.RDX, X86Reg.RDX);                                  /* test rdx, rdx */
        absent.add(e.jccForward32(Cond.E));                                      /* je .absent */
        e.aluRI(AluOp.ADD, false, X86Reg.RCX, 1);                                /* add ecx, 1 */
        e.aluRI(AluOp.AND, false, X86Reg.RCX, (1 << ConfirmedSteps.LOG2_SLOTS) - 1); /* and ecx, mask */
        e.jmpTo(probe);                                                          /* jmp .probe (a free slot always ends it) */
        e.bind32(found);                                                         /* .found: */
    }

    /**
     * __bpf_get_stackid on ips[0, rbx): skip, jhash2, then the bucket (StackIds.getStackId): rax = r0.
     * r13d = hash, r14d = id, rbx = the map's block, rdi = the bucket's word.
     */
    private static void bucket(X86Encoder e, Labels result) {
        Labels efault = new Labels(), eexist = new Labels(), enomem = new Labels(), returnId = new Labels(), noMatch = new Labels();
        e.load(true, X86Reg.RCX, Mem.of(X86Reg.RSP, SKIP));                      /* mov rcx, [rsp + SKIP] */
        e.aluRR(AluOp.CMP, true, X86Reg.RBX, X86Reg.RCX);                        /* cmp rbx, rcx */
        efault.add(e.jccForward32(Cond.BE));                                     /* jbe .efault (nr <= skip) */
        e.aluRR(AluOp.SUB, true, X86Reg.RBX, X86Reg.RCX);                        /* sub rbx, rcx */
        e.store(8, Mem.of(X86Reg.RSP, TRACE_NR), X86Reg.RBX);                    /* mov [rsp + TRACE_NR], rbx */
        e.movRR(true, X86Reg.RSI, X86Reg.RCX);                                   /* mov rsi, rcx */
        e.shiftImm(Shift.SHL, true, X86Reg.RSI, 3);                              /* shl rsi, 3 */
        e.aluRR(AluOp.ADD, true, X86Reg.RSI, X86Reg.RSP);                        /* add rsi, rsp (ips + skip) */
        e.lea(X86Reg.RDI, Mem.of(X86Reg.RBX, 0));                                /* lea rdi, [rbx] */
        e.aluRR(AluOp.ADD, false, X86Reg.RDI, X86Reg.RDI);                       /* add edi, edi (u32 words) */
        JhashEmitter.jhash2(e);                                                  /* r8d = jhash2(rsi, edi, 0) */
        e.movRR(false, X86Reg.R13, X86Reg.R8);                                   /* mov r13d, r8d (hash) */
        e.movRR(false, X86Reg.R14, X86Reg.R8);                                   /* mov r14d, r8d */
        e.aluRM(AluOp.AND, false, X86Reg.R14, Mem.of(X86Reg.R15, StackMapHandles.MASK)); /* and r14d, [r15 + MASK] (id) */
        e.load(true, X86Reg.RBX, Mem.of(X86Reg.R15, StackMapHandles.BLOCK));    /* mov rbx, [r15 + BLOCK] */
        e.movRR(true, X86Reg.RDI, X86Reg.R14);                                   /* mov rdi, r14 */
        e.shiftImm(Shift.SHL, true, X86Reg.RDI, 2);                              /* shl rdi, 2 */
        e.aluRR(AluOp.ADD, true, X86Reg.RDI, X86Reg.RBX);                        /* add rdi, rbx */
        e.aluRI(AluOp.ADD, true, X86Reg.RDI, StackTraceMap.BUCKETS);             /* add rdi, BUCKETS (&buckets[id]) */
        e.load(false, X86Reg.RAX, Mem.of(X86Reg.RDI, 0));                        /* mov eax, [rdi] (READ_ONCE(bucket)) */
        e.testRR(false, X86Reg.RAX, X86Reg.RAX);                                 /* test eax, eax */
        int empty = e.jccForward32(Cond.E);                                      /* je .store (empty) */
        element(e, X86Reg.RSI, X86Reg.RAX, X86Reg.RCX);                          /* rsi = the bucket's element */
        e.aluRM(AluOp.CMP, false, X86Reg.R13, Mem.of(X86Reg.RSI, StackTraceMap.ELEMENT_HASH)); /* cmp r13d, [rsi + hash] */
        noMatch.add(e.jccForward32(Cond.NE));                                    /* jne .noMatch */
        e.load(true, X86Reg.RAX, Mem.of(X86Reg.RSP, SAVED_ARGS + 16));          /* mov rax, [saved r3] (flags) */
        e.testRI(false, X86Reg.RAX, (int) StackFlags.BPF_F_FAST_STACK_CMP);      /* test eax, FAST_STACK_CMP */
        returnId.add(e.jccForward32(Cond.NE));                                   /* jne .returnId */
        e.load(false, X86Reg.RCX, Mem.of(X86Reg.RSP, TRACE_NR));                 /* mov ecx, [rsp + TRACE_NR] */
        e.aluRM(AluOp.CMP, false, X86Reg.RCX, Mem.of(X86Reg.RSI, StackTraceMap.ELEMENT_NR)); /* cmp ecx, [rsi + nr] */
        noMatch.add(e.jccForward32(Cond.NE));                                    /* jne .noMatch */
        skippedIps(e, X86Reg.RDX);                                               /* rdx = ips + skip */
        e.lea(X86Reg.R8, Mem.of(X86Reg.RSI, StackTraceMap.ELEMENT_IPS));         /* lea r8, [rsi + ips] */
        int cmp = e.position();                                                  /* .cmp: */
        e.load(true, X86Reg.RAX, Mem.of(X86Reg.R8, 0));                          /* mov rax, [r8] */
        e.aluRM(AluOp.CMP, true, X86Reg.RAX, Mem.of(X86Reg.RDX, 0));             /* cmp rax, [rdx] */
        noMatch.add(e.jccForward32(Cond.NE));                                    /* jne .noMatch */
        e.aluRI(AluOp.ADD, true, X86Reg.R8, 8);                                  /* add r8, 8 */
        e.aluRI(AluOp.ADD, true, X86Reg.RDX, 8);                                 /* add rdx, 8 */
        e.aluRI(AluOp.SUB, false, X86Reg.RCX, 1);                                /* sub ecx, 1 */
        e.jccRel32(Cond.NE, cmp);                                                /* jne .cmp */
        returnId.add(e.jmpForward32());                                          /* jmp .returnId (the same trace) */
        noMatch.bind(e);                                                         /* .noMatch: */
        e.load(true, X86Reg.RAX, Mem.of(X86Reg.RSP, SAVED_ARGS + 16));          /* mov rax, [saved r3] */
        e.testRI(false, X86Reg.RAX, (int) StackFlags.BPF_F_REUSE_STACKID);       /* test eax, REUSE_STACKID */
        eexist.add(e.jccForward32(Cond.E));                                      /* je .eexist */
        e.bind32(empty);                                                         /* .store: pcpu_freelist_pop */
        int pop = e.position();
        e.load(true, X86Reg.RAX, Mem.of(X86Reg.RBX, StackTraceMap.FREE_HEAD));   /* mov rax, [rbx] (tag:top) */
        e.movRR(false, X86Reg.R11, X86Reg.RAX);                                  /* mov r11d, eax (top = element + 1) */
        e.testRR(false, X86Reg.R11, X86Reg.R11);                                 /* test r11d, r11d */
        int fresh = e.jccForward32(Cond.E);                                      /* je .fresh (the list is empty) */
        element(e, X86Reg.RDX, X86Reg.R11, X86Reg.RCX);                          /* rdx = that element */
        e.load(false, X86Reg.R8, Mem.of(X86Reg.RDX, StackTraceMap.ELEMENT_NEXT_FREE)); /* mov r8d, [rdx + next] */
        nextHead(e, X86Reg.R8);                                                  /* r9 = tag + 1 : r8 */
        e.lockCmpxchg(true, Mem.of(X86Reg.RBX, StackTraceMap.FREE_HEAD), X86Reg.R9); /* lock cmpxchg [rbx], r9 */
        e.jccRel32(Cond.NE, pop);                                                /* jne .pop (raced) */
        int popped = e.jmpForward32();                                           /* jmp .fill */
        e.bind32(fresh);                                                         /* .fresh: an element never used */
        int again = e.position();
        e.load(true, X86Reg.RAX, Mem.of(X86Reg.RBX, StackTraceMap.FRESH));       /* mov rax, [rbx + FRESH] */
        e.aluRM(AluOp.CMP, true, X86Reg.RAX, Mem.of(X86Reg.R15, StackMapHandles.MAX_ENTRIES)); /* cmp rax, [r15 + MAX_ENTRIES] */
        enomem.add(e.jccForward32(Cond.AE));                                     /* jae .enomem (all handed out) */
        e.lea(X86Reg.R11, Mem.of(X86Reg.RAX, 1));                                /* lea r11, [rax + 1] */
        e.lockCmpxchg(true, Mem.of(X86Reg.RBX, StackTraceMap.FRESH), X86Reg.R11); /* lock cmpxchg [rbx + FRESH], r11 */
        e.jccRel32(Cond.NE, again);                                              /* jne .fresh (raced) */
        element(e, X86Reg.RDX, X86Reg.R11, X86Reg.RCX);                          /* rdx = element r11 - 1 */
        e.bind32(popped);                                                        /* .fill: r11 = element + 1, rdx = its address */
        // fill the element (off every bucket), then publish it with the exchange
        skippedIps(e, X86Reg.R8);                                                /* r8 = ips + skip */
        e.lea(X86Reg.RSI, Mem.of(X86Reg.RDX, StackTraceMap.ELEMENT_IPS));        /* lea rsi, [rdx + ips] */
        e.load(false, X86Reg.RCX, Mem.of(X86Reg.RSP, TRACE_NR));                 /* mov ecx, [rsp + TRACE_NR] */
        int copy = e.position();                                                 /* .copy: */
        e.load(true, X86Reg.RAX, Mem.of(X86Reg.R8, 0));                          /* mov rax, [r8] */
        e.store(8, Mem.of(X86Reg.RSI, 0), X86Reg.RAX);                           /* mov [rsi], rax */
        e.aluRI(AluOp.ADD, true, X86Reg.R8, 8);                                  /* add r8, 8 */
        e.aluRI(AluOp.ADD, true, X86Reg.RSI, 8);                                 /* add rsi, 8 */
        e.aluRI(AluOp.SUB, false, X86Reg.RCX, 1);                                /* sub ecx, 1 */
        e.jccRel32(Cond.NE, copy);                                               /* jne .copy */
        e.store(4, Mem.of(X86Reg.RDX, StackTraceMap.ELEMENT_HASH), X86Reg.R13);  /* mov [rdx + hash], r13d */
        e.load(false, X86Reg.RCX, Mem.of(X86Reg.RSP, TRACE_NR));                 /* mov ecx, [rsp + TRACE_NR] */
        e.store(4, Mem.of(X86Reg.RDX, StackTraceMap.ELEMENT_NR), X86Reg.RCX);    /* mov [rdx + nr], ecx */
        e.xchg(false, Mem.of(X86Reg.RDI, 0), X86Reg.R11);                        /* xchg [rdi], r11d (old element + 1) */
        e.testRR(false, X86Reg.R11, X86Reg.R11);                                 /* test r11d, r11d */
        returnId.add(e.jccForward32(Cond.E));                                    /* je .returnId */
        element(e, X86Reg.RDX, X86Reg.R11, X86Reg.RCX);                          /* rdx = the old element */
        int push = e.position();                                                 /* .push: pcpu_freelist_push */
        e.load(true, X86Reg.RAX, Mem.of(X86Reg.RBX, StackTraceMap.FREE_HEAD));   /* mov rax, [rbx] */
        e.store(4, Mem.of(X86Reg.RDX, StackTraceMap.ELEMENT_NEXT_FREE), X86Reg.RAX); /* mov [rdx + next], eax */
        nextHead(e, X86Reg.R11);                                                 /* r9 = tag + 1 : r11 */
        e.lockCmpxchg(true, Mem.of(X86Reg.RBX, StackTraceMap.FREE_HEAD), X86Reg.R9); /* lock cmpxchg [rbx], r9 */
        e.jccRel32(Cond.NE, push);                                               /* jne .push (raced) */
        returnId.bind(e);                                                        /* .returnId: */
        e.movRR(false, X86Reg.RAX, X86Reg.R14);                                  /* mov eax, r14d */
        result.add(e.jmpForward32());                                            /* jmp .result */
        errno(e, efault, -Errno.EFAULT, result);
        errno(e, eexist, -Errno.EEXIST, result);
        errno(e, enomem, -Errno.ENOMEM, result);
    }

    /**
     * __bpf_get_stack's end on ips[0, rbx): nr &lt; skip is -EFAULT with the whole buffer zeroed; else
     * min(nr - skip, size / 8) ips copied, the rest zeroed, rax = the bytes copied.
     */
    private static void copyOut(X86Encoder e, Labels result) {
        e.load(true, X86Reg.RDI, Mem.of(X86Reg.RSP, SAVED_ARGS + 8));           /* mov rdi, [saved r2] (buf) */
        e.load(true, X86Reg.R9, Mem.of(X86Reg.RSP, SAVED_ARGS + 16));           /* mov r9, [saved size] */
        e.shiftImm(Shift.SHR, true, X86Reg.R9, 3);                               /* shr r9, 3 (slots) */
        e.load(true, X86Reg.RCX, Mem.of(X86Reg.RSP, SKIP));                      /* mov rcx, [rsp + SKIP] */
        e.aluRR(AluOp.XOR, false, X86Reg.RDX, X86Reg.RDX);                       /* xor edx, edx (copied = 0) */
        e.movImmSx(X86Reg.RAX, -Errno.EFAULT);                                   /* mov rax, -EFAULT */
        e.aluRR(AluOp.CMP, true, X86Reg.RBX, X86Reg.RCX);                        /* cmp rbx, rcx */
        int fault = e.jccForward32(Cond.B);                                      /* jb .zero (nr < skip: all zero) */
        e.aluRR(AluOp.SUB, true, X86Reg.RBX, X86Reg.RCX);                        /* sub rbx, rcx (nr - skip) */
        e.aluRR(AluOp.CMP, true, X86Reg.RBX, X86Reg.R9);                         /* cmp rbx, r9 */
        int fits = e.jccForward8(Cond.BE);                                       /* jbe .fits */
        e.movRR(true, X86Reg.RBX, X86Reg.R9);                                    /* mov rbx, r9 */
        e.bind(fits);                                                            /* .fits: rbx = slots to copy */
        skippedIps(e, X86Reg.RSI);                                               /* rsi = ips + skip */
        int copy = e.position();                                                 /* .copy: */
        e.aluRR(AluOp.CMP, true, X86Reg.RDX, X86Reg.RBX);                        /* cmp rdx, rbx */
        int copied = e.jccForward32(Cond.AE);                                    /* jae .copied */
        e.load(true, X86Reg.RAX, Mem.of(X86Reg.RSI, 0));                         /* mov rax, [rsi] */
        e.store(8, Mem.of(X86Reg.RDI, 0), X86Reg.RAX);                           /* mov [rdi], rax */
        e.aluRI(AluOp.ADD, true, X86Reg.RSI, 8);                                 /* add rsi, 8 */
        e.aluRI(AluOp.ADD, true, X86Reg.RDI, 8);                                 /* add rdi, 8 */
        e.aluRI(AluOp.ADD, true, X86Reg.RDX, 1);                                 /* add rdx, 1 */
        e.jmpTo(copy);                                                           /* jmp .copy */
        e.bind32(copied);                                                        /* .copied: */
        e.lea(X86Reg.RAX, Mem.of(X86Reg.RBX, 0));                                /* lea rax, [rbx] */
        e.shiftImm(Shift.SHL, true, X86Reg.RAX, 3);                              /* shl rax, 3 (bytes copied) */
        e.bind32(fault);                                                         /* .zero: rdx slots done, rdi at the next */
        int zero = e.position();
        e.aluRR(AluOp.CMP, true, X86Reg.RDX, X86Reg.R9);                         /* cmp rdx, r9 */
        result.add(e.jccForward32(Cond.AE));                                     /* jae .result */
        e.storeImm(8, Mem.of(X86Reg.RDI, 0), 0);                                 /* mov qword [rdi], 0 */
        e.aluRI(AluOp.ADD, true, X86Reg.RDI, 8);                                 /* add rdi, 8 */
        e.aluRI(AluOp.ADD, true, X86Reg.RDX, 1);                                 /* add rdx, 1 */
        e.jmpTo(zero);                                                           /* jmp .zero */
    }

    private static void errno(X86Encoder e, Labels from, int value, Labels result) {
        from.bind(e);
        e.movImmSx(X86Reg.RAX, value);                                           /* mov rax, -errno */
        result.add(e.jmpForward32());                                            /* jmp .result */
    }

    /** dst = ips + skip (a pointer into the frame). */
    private static void skippedIps(X86Encoder e, X86Reg dst) {
        e.load(true, dst, Mem.of(X86Reg.RSP, SKIP));                             /* mov dst, [rsp + SKIP] */
        e.shiftImm(Shift.SHL, true, dst, 3);                                     /* shl dst, 3 */
        e.aluRR(AluOp.ADD, true, dst, X86Reg.RSP);                               /* add dst, rsp */
    }

    /** dst = the address of element {@code plusOne - 1}: block + elements + (plusOne - 1) * stride. Clobbers tmp. */
    private static void element(X86Encoder e, X86Reg dst, X86Reg plusOne, X86Reg tmp) {
        e.movRR(false, dst, plusOne);                                            /* mov dst32, plusOne32 */
        e.aluRI(AluOp.SUB, true, dst, 1);                                        /* sub dst, 1 */
        e.load(true, tmp, Mem.of(X86Reg.R15, StackMapHandles.STRIDE));          /* mov tmp, [r15 + STRIDE] */
        e.imulRR(true, dst, tmp);                                                /* imul dst, tmp */
        e.aluRM(AluOp.ADD, true, dst, Mem.of(X86Reg.R15, StackMapHandles.ELEMENTS)); /* add dst, [r15 + ELEMENTS] */
        e.aluRR(AluOp.ADD, true, dst, X86Reg.RBX);                               /* add dst, rbx */
    }

    /** r9 = ((rax >>> 32) + 1) << 32 | top (a u32, zero-extended): the next free-list head, its tag moved on. */
    private static void nextHead(X86Encoder e, X86Reg top) {
        e.movRR(true, X86Reg.R9, X86Reg.RAX);                                    /* mov r9, rax */
        e.shiftImm(Shift.SHR, true, X86Reg.R9, 32);                              /* shr r9, 32 */
        e.aluRI(AluOp.ADD, true, X86Reg.R9, 1);                                  /* add r9, 1 */
        e.shiftImm(Shift.SHL, true, X86Reg.R9, 32);                              /* shl r9, 32 */
        e.movRR(false, top, top);                                                /* mov top32, top32 (zero-extend) */
        e.aluRR(AluOp.OR, true, X86Reg.R9, top);                                 /* or r9, top */
    }
}
