package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.CodeBuffer;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.jit.x86.X86Encoder;

/**
 * A function with a jffi closure's signature (up to six 64-bit arguments: the helper bridge's
 * {@code long bridge(r1, r2, r3, r4, r5, env)}, a probe trampoline's {@code upcall(pt_regs, link)})
 * that enters Java through JNI itself: {@code GetEnv}, then {@code CallStaticLongMethodA} of the
 * route's {@code static long upcall(long block)}. The arguments reach Java in an upcall block on the
 * function's stack, not as JNI arguments: JNI copies each argument through the method's signature,
 * and with seven a call cost ≈75 ns against ≈52 with one (a C loop calling a static method,
 * 2026-12-03). The method reads argument {@code i} at {@code block + ARGS + 8i} and sets the done
 * word at {@code block + DONE} as it returns; a word left 0 means an exception escaped it, and the
 * function clears it and answers 0, as the closure does. On a thread the JVM does not know (GetEnv
 * fails: a probe hit on a native thread) it calls the jffi closure, which attaches the thread —
 * unless a {@link JavaThreadGate} is given, which refuses such threads and HotSpot's own.
 */
public final class UpcallEmitter {
    private UpcallEmitter() {}

    private static final X86Reg[] SYSV_ARGS = {X86Reg.RDI, X86Reg.RSI, X86Reg.RDX, X86Reg.RCX, X86Reg.R8, X86Reg.R9};

    /** The upcall block: the done word, then the arguments (8 bytes each, in order). */
    public static final int DONE = 0, ARGS = 8;

    /**
     * The function for a closure of {@code args} (1-6) 64-bit arguments. Below rbp: the upcall block
     * (done word, arguments), the JNIEnv pointer and the one jvalue (the block's address), rounded to
     * keep rsp 16-byte aligned; the block starts at rsp. Where an exception escaped the method and
     * {@code envArg} is not -1, {@code STATUS_HELPER_ERROR} is stored in the STATUS word of the env
     * block that argument points to (the helper bridge's sixth), so the run ends with an error instead
     * of going on with r0 = 0.
     */
    public static NativeFormEmitter.Function code(JniRoute jni, long closure, int args, int envArg) {
        return code(jni, closure, args, envArg, -1, null);
    }

    /**
     * The same, entering Java only where {@code gate} allows ({@link JavaThreadGate}; null: on every
     * thread). A refused call answers 0 without entering Java: it stores {@code STATUS_NO_JAVA} in the
     * env block of argument {@code envArg} (the run ends) and adds 1 to the counter argument
     * {@code missedArg} points at, where those are not -1.
     */
    public static NativeFormEmitter.Function code(JniRoute jni, long closure, int args, int envArg, int missedArg, JavaThreadGate gate) {
        if (args < 1 || args > SYSV_ARGS.length) throw new IllegalArgumentException("arguments: " + args);
        if (envArg >= args || missedArg >= args) throw new IllegalArgumentException("env block or counter argument out of " + args);
        return NativeFormEmitter.Function.withFrame(e -> body(e, jni, closure, args, envArg, missedArg, gate));
    }

    private static int arg(int i) { return ARGS + 8 * i; }

    private static void body(X86Encoder e, JniRoute jni, long closure, int args, int envArg, int missedArg, JavaThreadGate gate) {
        final int jniEnv = arg(args), jvalue = jniEnv + 8, frame = (jvalue + 8 + 15) & ~15;
        e.aluRI(AluOp.SUB, true, X86Reg.RSP, frame);                              /* sub rsp, frame */
        for (int i = 0; i < args; i++) {
            e.store(8, Mem.of(X86Reg.RSP, arg(i)), SYSV_ARGS[i]);                 /* mov [rsp + ARGS + 8i], argument i */
        }
        e.storeImm(8, Mem.of(X86Reg.RSP, DONE), 0);                               /* mov qword [rsp + DONE], 0 */
        e.store(8, Mem.of(X86Reg.RSP, jvalue), X86Reg.RSP);                          /* mov [rsp + jvalue], rsp (the block) */
        if (gate != null) {
            gated(e, jni, envArg, missedArg, gate, jniEnv, jvalue);
            return;
        }
        emitEntry(e, jni, closure, args, envArg, jniEnv, jvalue);
    }

    /** {@code pthread_getspecific(guard)} into rax ({@code value} -1), or {@code pthread_setspecific(guard, value)}. */
    private static void guard(X86Encoder e, JavaThreadGate gate, int value) {
        e.movImm32(X86Reg.RDI, gate.guardKey());                                  /* mov edi, guard key */
        if (value >= 0) {
            e.movImm32(X86Reg.RSI, value);                                        /* mov esi, value */
            e.movabs(X86Reg.RAX, gate.setspecific());                             /* movabs rax, pthread_setspecific */
        } else {
            e.movabs(X86Reg.RAX, gate.getspecific());                             /* movabs rax, pthread_getspecific */
        }
        e.callR(X86Reg.RAX);                                                      /* call rax */
    }

    /** A refused call: the run ends (env block), the hit counts as missed (counter), rax = 0. */
    private static void refusal(X86Encoder e, int envArg, int missedArg) {
        if (envArg >= 0) {
            e.load(true, X86Reg.RAX, Mem.of(X86Reg.RSP, arg(envArg)));               /* mov rax, [rsp + ARGS + 8 * envArg] (the env block) */
            e.storeImm(8, Mem.of(X86Reg.RAX, EnvLayout.STATUS), (int) EnvLayout.STATUS_NO_JAVA); /* mov qword [rax + STATUS], NO_JAVA */
        }
        if (missedArg >= 0) {
            e.load(true, X86Reg.RAX, Mem.of(X86Reg.RSP, arg(missedArg)));            /* mov rax, [rsp + ARGS + 8 * missedArg] (the counter) */
            e.movImm32(X86Reg.RDX, 1);                                            /* mov edx, 1 */
            e.aluMR(AluOp.ADD, true, Mem.of(X86Reg.RAX, 0), X86Reg.RDX, true);      /* lock add [rax], rdx */
        }
        e.aluRR(AluOp.XOR, false, X86Reg.RAX, X86Reg.RAX);                           /* xor eax, eax */
    }

    /**
     * GetEnv, then on a thread the JVM knows the JNI call, on another the closure (which attaches
     * it). Every path ends at its end with rax = the answer.
     */
    private static void emitEntry(X86Encoder e, JniRoute jni, long closure, int args, int envArg, int jniEnv, int jvalue) {
        getEnv(e, jni, jniEnv);
        e.testRR(false, X86Reg.RAX, X86Reg.RAX);                                     /* test eax, eax */
        int unknownThread = e.jccForward32(Cond.NE);                           /* jne .closure */
        int done = jniCall(e, jni, envArg, jniEnv, jvalue);
        e.bind32(unknownThread);                                               /* .closure: */
        for (int i = 0; i < args; i++) {
            e.load(true, SYSV_ARGS[i], Mem.of(X86Reg.RSP, arg(i)));               /* mov argument i, [rsp + ARGS + 8i] */
        }
        e.movabs(X86Reg.R11, closure);                                            /* movabs r11, jffi closure */
        e.callR(X86Reg.R11);                                                      /* call r11 */
        e.bind32(done);                                                        /* .done: */
    }

    /**
     * The gated entry ({@link JavaThreadGate}): the guard word around GetEnv (its first call on a
     * thread allocates libjvm's TLS, and a probe on malloc would come back here for ever), then the
     * thread's class, state, critical-region count and pending exception read from the JavaThread;
     * any refusal, and a thread the JVM does not know, answers 0 without entering Java.
     */
    private static void gated(X86Encoder e, JniRoute jni, int envArg, int missedArg, JavaThreadGate gate, int jniEnv, int jvalue) {
        guard(e, gate, -1);                                                    /* rax = this thread's guard word */
        e.testRR(true, X86Reg.RAX, X86Reg.RAX);                                      /* test rax, rax */
        int nested = e.jccForward32(Cond.NE);                                  /* jne .refuse (back here from inside GetEnv) */
        guard(e, gate, 1);                                                     /* guard word = 1 */
        getEnv(e, jni, jniEnv);
        e.store(8, Mem.of(X86Reg.RSP, DONE), X86Reg.RAX);                            /* mov [rsp + DONE], rax (GetEnv's answer, over the next call) */
        guard(e, gate, 0);                                                     /* guard word = 0 */
        e.aluMI(AluOp.CMP, false, Mem.of(X86Reg.RSP, DONE), 0);                   /* cmp dword [rsp + DONE], 0 (JNI_OK) */
        e.storeImm(8, Mem.of(X86Reg.RSP, DONE), 0);                               /* mov qword [rsp + DONE], 0 (flags kept) */
        int unknownThread = e.jccForward32(Cond.NE);                           /* jne .refuse (not attached: HotSpot's own, or starting, or foreign) */
        e.load(true, X86Reg.RAX, Mem.of(X86Reg.RSP, jniEnv));                        /* mov rax, [rsp + jniEnv] */
        e.lea(X86Reg.RAX, Mem.of(X86Reg.RAX, (int) -gate.envOffset()));             /* lea rax, [rax - env offset] (the JavaThread) */
        e.movabs(X86Reg.R10, gate.vtable());                                      /* movabs r10, plain JavaThread vtable */
        e.aluRM(AluOp.CMP, true, X86Reg.R10, Mem.of(X86Reg.RAX, 0));                 /* cmp r10, [rax] */
        int internal = e.jccForward32(Cond.NE);                                /* jne .refuse (a VM-internal JavaThread) */
        e.aluMI(AluOp.CMP, false, Mem.of(X86Reg.RAX, gate.stateOffset()), JavaThreadGate.THREAD_IN_NATIVE); /* cmp dword [rax + _thread_state], 4 */
        int inVm = e.jccForward32(Cond.NE);                                    /* jne .refuse (inside the VM) */
        e.aluMI(AluOp.CMP, false, Mem.of(X86Reg.RAX, gate.criticalOffset()), 0);   /* cmp dword [rax + _jni_active_critical], 0 */
        int critical = e.jccForward32(Cond.NE);                                /* jne .refuse (a JNI critical region: the GC waits for it) */
        e.aluMI(AluOp.CMP, true, Mem.of(X86Reg.RAX, gate.pendingOffset()), 0);     /* cmp qword [rax + _pending_exception], 0 */
        int pending = e.jccForward32(Cond.NE);                                 /* jne .refuse (the native code's exception stays its own) */
        e.load(true, X86Reg.R10, Mem.of(X86Reg.RAX, gate.stackBaseOffset()));      /* mov r10, [rax + _stack_base] (the top) */
        e.aluRM(AluOp.SUB, true, X86Reg.R10, Mem.of(X86Reg.RAX, gate.stackSizeOffset())); /* sub r10, [rax + _stack_size] (the end) */
        e.aluRI(AluOp.ADD, true, X86Reg.R10, JavaThreadGate.STACK_NEEDED);        /* add r10, STACK_NEEDED */
        e.aluRR(AluOp.CMP, true, X86Reg.RSP, X86Reg.R10);                            /* cmp rsp, r10 */
        int shallow = e.jccForward32(Cond.B);                                  /* jb .refuse (too little stack left for a Java call) */
        int done = jniCall(e, jni, envArg, jniEnv, jvalue);
        for (int r : new int[] {nested, unknownThread, internal, inVm, critical, pending, shallow}) e.bind32(r); /* .refuse: */
        refusal(e, envArg, missedArg);
        e.bind32(done);                                                        /* .done: */
    }

    private static void getEnv(X86Encoder e, JniRoute jni, int jniEnv) {
        e.movabs(X86Reg.RDI, jni.vm());                                           /* movabs rdi, vm */
        e.lea(X86Reg.RSI, Mem.of(X86Reg.RSP, jniEnv));                               /* lea rsi, [rsp + jniEnv] */
        e.movImm32(X86Reg.RDX, jni.version());                                    /* mov edx, version */
        e.movabs(X86Reg.RAX, jni.getEnv());                                       /* movabs rax, GetEnv */
        e.callR(X86Reg.RAX);                                                      /* call rax */
    }

    /**
     * CallStaticLongMethodA with the block; an exception that escaped the method is cleared and,
     * with an env block, ends the run with a helper error. Returns the jump to {@code .done} to bind.
     */
    private static int jniCall(X86Encoder e, JniRoute jni, int envArg, int jniEnv, int jvalue) {
        e.load(true, X86Reg.RDI, Mem.of(X86Reg.RSP, jniEnv));                        /* mov rdi, [rsp + jniEnv] */
        e.movabs(X86Reg.RSI, jni.owner());                                        /* movabs rsi, the class (global ref) */
        e.movabs(X86Reg.RDX, jni.upcall());                                       /* movabs rdx, upcall (method id) */
        e.lea(X86Reg.RCX, Mem.of(X86Reg.RSP, jvalue));                               /* lea rcx, [rsp + jvalue] (jvalue *) */
        e.movabs(X86Reg.RAX, jni.callStatic());                                   /* movabs rax, CallStaticLongMethodA */
        e.callR(X86Reg.RAX);                                                      /* call rax */
        e.aluMI(AluOp.CMP, true, Mem.of(X86Reg.RSP, DONE), 0);                    /* cmp qword [rsp + DONE], 0 */
        int returned = e.jccForward32(Cond.NE);                                /* jne .returned (rax = r0) */
        e.load(true, X86Reg.RDI, Mem.of(X86Reg.RSP, jniEnv));                        /* mov rdi, [rsp + jniEnv] */
        e.movabs(X86Reg.RAX, jni.clear());                                        /* movabs rax, ExceptionClear */
        e.callR(X86Reg.RAX);                                                      /* call rax */
        if (envArg >= 0) {
            e.load(true, X86Reg.RAX, Mem.of(X86Reg.RSP, arg(envArg)));               /* mov rax, [rsp + ARGS + 8 * envArg] (the env block) */
            e.storeImm(8, Mem.of(X86Reg.RAX, EnvLayout.STATUS), (int) EnvLayout.STATUS_HELPER_ERROR); /* mov qword [rax + STATUS], HELPER_ERROR */
        }
        e.aluRR(AluOp.XOR, false, X86Reg.RAX, X86Reg.RAX);                           /* xor eax, eax */
        e.bind32(returned);                                                    /* .returned: */
        return e.jmpForward32();                                               /* jmp .done */
    }

    /**
     * {@code jclass globalClass(JNIEnv *env, const char *name, FindClass, NewGlobalRef)}: a global
     * reference to class {@code name}, or 0 (with FindClass's exception pending). One native call,
     * because the local reference FindClass answers dies when the native call that made it returns.
     */
    public static byte[] globalClass() {
        CodeBuffer buf = new CodeBuffer();
        X86Encoder e = new X86Encoder(buf);
        e.push(X86Reg.RBP);                                                       /* push rbp */
        e.movRR(true, X86Reg.RBP, X86Reg.RSP);                                       /* mov rbp, rsp */
        e.push(X86Reg.RBX);                                                       /* push rbx */
        e.push(X86Reg.R12);                                                       /* push r12 (rsp 16-byte aligned) */
        e.movRR(true, X86Reg.RBX, X86Reg.RDI);                                       /* mov rbx, rdi (env) */
        e.movRR(true, X86Reg.R12, X86Reg.RCX);                                       /* mov r12, rcx (NewGlobalRef) */
        e.callR(X86Reg.RDX);                                                      /* call rdx (FindClass(env, name)) */
        e.testRR(true, X86Reg.RAX, X86Reg.RAX);                                      /* test rax, rax */
        int missing = e.jccForward8(Cond.E);                                   /* je .out */
        e.movRR(true, X86Reg.RDI, X86Reg.RBX);                                       /* mov rdi, rbx */
        e.movRR(true, X86Reg.RSI, X86Reg.RAX);                                       /* mov rsi, rax */
        e.callR(X86Reg.R12);                                                      /* call r12 (NewGlobalRef(env, local)) */
        e.bind(missing);                                                       /* .out: */
        e.load(true, X86Reg.R12, Mem.of(X86Reg.RBP, -16));                           /* mov r12, [rbp - 16] */
        e.load(true, X86Reg.RBX, Mem.of(X86Reg.RBP, -8));                            /* mov rbx, [rbp - 8] */
        e.leave();                                                             /* leave */
        e.ret();                                                               /* ret */
        return buf.toByteArray();
    }
}
