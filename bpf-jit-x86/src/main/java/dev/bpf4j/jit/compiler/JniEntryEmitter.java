package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.x86.CodeBuffer;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.jit.x86.X86Encoder;

/**
 * The body of a JNI {@code static native long enter(long fn, long ctx, long env)}: it moves the two
 * arguments of a program's entry {@code long fn(ctx, env)} into place over JNI's {@code JNIEnv *} and
 * {@code jclass} and jumps to {@code fn}, which returns straight to the JVM's native wrapper. It has
 * no frame of its own, so a stack walk from the program goes from its main function to the wrapper,
 * as it went to jffi's stub before.
 */
public final class JniEntryEmitter {
    private JniEntryEmitter() {}

    public static byte[] code() {
        CodeBuffer buf = new CodeBuffer();
        X86Encoder e = new X86Encoder(buf);
        e.movRR(true, X86Reg.RDI, X86Reg.RCX);                                       /* mov rdi, rcx (ctx) */
        e.movRR(true, X86Reg.RSI, X86Reg.R8);                                        /* mov rsi, r8 (env) */
        e.jmpR(X86Reg.RDX);                                                       /* jmp rdx (fn) */
        return buf.toByteArray();
    }
}
