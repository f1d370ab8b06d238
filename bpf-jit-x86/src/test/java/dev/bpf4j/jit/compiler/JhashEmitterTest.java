package dev.bpf4j.jit.compiler;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Type;
import dev.bpf4j.jit.runtime.ExecutableMemory;
import dev.bpf4j.jit.x86.CodeBuffer;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.stack.Jhash;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The native jhash2 the stack id helper runs equals {@link Jhash#jhash2} on random keys of 1 to 254 words (seed printed). */
class JhashEmitterTest {
    @Test
    void nativeJhash2IsBitIdenticalToTheJavaOne() {
        CodeBuffer buf = new CodeBuffer();
        X86Encoder e = new X86Encoder(buf);
        e.push(X86Reg.RBP);
        e.movRR(true, X86Reg.RBP, X86Reg.RSP);
        e.movRR(true, X86Reg.RAX, X86Reg.RDI);                                   // (words, count) -> rsi, edi
        e.movRR(false, X86Reg.RDI, X86Reg.RSI);
        e.movRR(true, X86Reg.RSI, X86Reg.RAX);
        JhashEmitter.jhash2(e);
        e.movRR(false, X86Reg.RAX, X86Reg.R8);
        e.leave();
        e.ret();
        CallContext ctx = CallContext.getCallContext(Type.SINT, new Type[] {Type.SINT64, Type.SINT64}, CallingConvention.DEFAULT, false);
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        long words = NativeMemory.allocate(4 * 254);
        try (ExecutableMemory code = ExecutableMemory.of(buf.toByteArray())) {
            for (int i = 0; i < 2000; i++) {
                int n = 1 + rnd.nextInt(254);
                int[] k = new int[n];
                for (int j = 0; j < n; j++) {
                    k[j] = rnd.nextInt();
                    NativeMemory.putInt(words + 4L * j, k[j]);
                }
                int got = (int) Invoker.getInstance().invokeN2(ctx, code.address(), words, n);
                assertThat(got).as("seed %d, %d words", seed, n).isEqualTo(Jhash.jhash2(k, n, 0));
            }
        } finally {
            NativeMemory.free(words);
        }
    }
}
