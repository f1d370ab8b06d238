package dev.bpf4j.stack;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Closure;
import com.kenai.jffi.ClosureManager;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.MemoryIO;
import com.kenai.jffi.PageManager;
import com.kenai.jffi.Type;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.PtRegs;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.unwind.Frame;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static dev.bpf4j.stack.StackFlags.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Registers captured by a tiny native routine; inside its upcall (its frame and its callers' still
 * live) every engine runs with those registers and no snapshot, so the unwind reads the live
 * thread stack: the same ids and ips under the interpreter, the JIT and the JVM engine.
 */
class LiveRegistersEnginesTest {
    /** {@code void capture(long *buf)}: builds a frame, stores rip/rsp/rbp into buf[0..2], calls buf[3](buf). */
    private static final byte[] CODE = bytes(
            0x55,                                     // 00: push rbp
            0x48, 0x89, 0xe5,                         // 01: mov rbp, rsp
            0x48, 0x8d, 0x05, 0x00, 0x00, 0x00, 0x00, // 04: lea rax, [rip]      ; rax = capture + 0x0b
            0x48, 0x89, 0x07,                         // 0b: mov [rdi], rax
            0x48, 0x89, 0x67, 0x08,                   // 0e: mov [rdi+8], rsp
            0x48, 0x89, 0x6f, 0x10,                   // 12: mov [rdi+16], rbp
            0x48, 0x8b, 0x47, 0x18,                   // 16: mov rax, [rdi+24]
            0xff, 0xd0,                               // 1a: call rax           ; rsp is 16-byte aligned here
            0x5d,                                     // 1c: pop rbp
            0xc3);                                    // 1d: ret
    private static final int CAPTURED_IP = 0x0b;

    @Test
    void liveRegistersGiveTheSameTraceUnderEveryEngine() {
        PageManager pm = PageManager.getInstance();
        MemoryIO io = MemoryIO.getInstance();
        long code = pm.allocatePages(1, PageManager.PROT_READ | PageManager.PROT_WRITE);
        assertThat(code).isNotZero();
        io.putByteArray(code, CODE, 0, CODE.length);
        pm.protectPages(code, 1, PageManager.PROT_READ | PageManager.PROT_EXEC);
        long buf = io.allocateMemory(32, true);
        try (Engines env = new Engines(127, 4096)) {
            List<Long> ids = new ArrayList<>();
            AtomicReference<long[]> regs = new AtomicReference<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Closure upcall = b -> {
                try {
                    long p = b.getAddress(0);
                    long[] r = {io.getLong(p), io.getLong(p + 8), io.getLong(p + 16)};
                    regs.set(r);
                    RunContext ctx = RunContext.builder().registers(PtRegs.of(r[0], r[1], r[2])).build();
                    for (Engine e : Engines.ALL) {
                        for (long flags : new long[] {0, BPF_F_USER_STACK}) ids.add(env.run(e, env.getStackId(flags), ctx));
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            };
            Closure.Handle h = ClosureManager.getInstance().newClosure(upcall,
                    CallContext.getCallContext(Type.VOID, new Type[] {Type.POINTER}, CallingConvention.DEFAULT, false));
            try {
                io.putLong(buf + 24, h.getAddress());
                Invoker.getInstance().invokeN1(CallContext.getCallContext(Type.VOID, new Type[] {Type.POINTER},
                        CallingConvention.DEFAULT, false), code, buf);
            } finally {
                h.dispose();
            }
            if (failure.get() != null) throw new AssertionError("upcall failed", failure.get());

            assertThat(ids).hasSize(2 * Engines.ALL.size());
            assertThat(ids.get(0)).isGreaterThanOrEqualTo(0);
            assertThat(ids).as("interp vs JIT vs jvm, kernel vs user stack").containsOnly(ids.get(0));
            List<Long> ips = env.stacks.ips(ids.get(0).intValue()).map(a -> java.util.Arrays.stream(a).boxed().toList()).orElseThrow();
            assertThat(ips.get(0)).isEqualTo(code + CAPTURED_IP).isEqualTo(regs.get()[0]);
            assertThat(ips).as("the routine's caller, found through its frame").hasSizeGreaterThanOrEqualTo(2);
            List<Frame> frames = StackTraceView.of(env.stacks).frames(ids.get(0).intValue());
            assertThat(frames.get(1).module()).as("the jffi stub that called the routine: " + frames).contains("jffi");
        } finally {
            io.freeMemory(buf);
            pm.freePages(code, 1);
        }
    }

    private static byte[] bytes(int... v) {
        byte[] b = new byte[v.length];
        for (int i = 0; i < v.length; i++) b[i] = (byte) v[i];
        return b;
    }
}
