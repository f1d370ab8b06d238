package dev.bpf4j.jit.probe;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Type;
import dev.bpf4j.jit.runtime.ExecutableMemory;
import dev.bpf4j.jit.x86.CodeBuffer;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.unwind.CfaRule;
import dev.bpf4j.unwind.CodeMap;
import dev.bpf4j.unwind.CodeRegion;
import dev.bpf4j.unwind.UnwindRow;
import dev.bpf4j.jit.x86.AluOp;

import java.util.List;

/**
 * Calls a native {@code long fn(long)} from Java as the root of its stack: a small thunk,
 * {@code bpf4j_root_call}, clears rbp before the call, so every stack walk from inside
 * {@code fn} — {@code bpf_get_stackid} in a probe, perf, gdb — ends with {@code fn}, then the thunk's
 * return address, and never wanders into the JVM frames that called it (which differ between
 * interpreted and compiled Java, between threads, between runs). Stacks of two calls through it are
 * therefore the same ips whatever Java called them, which is what lets engines and threads be
 * compared id for id.
 *
 * <pre>
 *  push rbp           the caller's rbp (callee-saved): rsp is now 16-aligned for the call
 *  mov rax, rdi       fn
 *  mov rdi, rsi       arg
 *  xor ebp, ebp       frame chain ends here
 *  call rax
 *  pop rbp
 *  ret
 * </pre>
 *
 * Unwind rows: the return address after {@code call rax} is looked up inside the call instruction,
 * whose row is the frame-pointer rule with rbp = 0: the walk stops there, after the thunk's frame.
 */
public final class RootCall {
    /** The thunk's symbol in the code map (the last frame of every stack walked from below it). */
    public static final String SYMBOL = "bpf4j_root_call";

    private static final CallContext L_PL = CallContext.getCallContext(Type.SINT64, new Type[]{Type.POINTER, Type.SINT64},
            CallingConvention.DEFAULT, false);
    private static volatile RootCall instance;

    private final ExecutableMemory code;
    private final CodeRegion region;

    private RootCall() {
        CodeBuffer b = new CodeBuffer();
        X86Encoder e = new X86Encoder(b);
        e.push(X86Reg.RBP);                                     /* push rbp */
        int afterPush = e.position();
        e.movRR(true, X86Reg.RAX, X86Reg.RDI);                     /* mov rax, rdi */
        e.movRR(true, X86Reg.RDI, X86Reg.RSI);                     /* mov rdi, rsi */
        e.aluRR(AluOp.XOR, false, X86Reg.RBP, X86Reg.RBP); /* xor ebp, ebp */
        int call = e.position();
        e.callR(X86Reg.RAX);                                    /* call rax */
        int afterCall = e.position();
        e.pop(X86Reg.RBP);                                      /* pop rbp */
        int ret = e.position();
        e.ret();                                             /* ret */
        this.code = ExecutableMemory.of(b.toByteArray());
        List<UnwindRow> rows = List.of(
                new UnwindRow(0, afterPush, CfaRule.RETURN_AT_SP),
                new UnwindRow(afterPush, call, CfaRule.RETURN_AT_SP_PLUS_8),
                new UnwindRow(call, afterCall, CfaRule.FRAME_POINTER),   // rbp = 0: the root
                new UnwindRow(afterCall, ret, CfaRule.RETURN_AT_SP_PLUS_8),
                new UnwindRow(ret, ret + 1, CfaRule.RETURN_AT_SP));
        this.region = new CodeRegion(code.address(), code.size(), SYMBOL, NativeProbe.MODULE, rows);
        CodeMap.global().register(region);
    }

    /** The process's thunk (made on first use, kept for the life of the process). */
    public static RootCall get() {
        RootCall r = instance;
        if (r == null) {
            synchronized (RootCall.class) {
                r = instance;
                if (r == null) instance = r = new RootCall();
            }
        }
        return r;
    }

    /** Calls {@code long fn(long arg)} at {@code function} through the thunk. */
    public long call(long function, long arg) {
        if (function == 0) throw new IllegalArgumentException("no function to call (address 0)");
        return Invoker.getInstance().invokeN2(L_PL, code.address(), function, arg);
    }

    /** Whether {@code ip} lies in the thunk: the root frame of a stack walked from below it. */
    public boolean contains(long ip) { return region.contains(ip); }

    public long address() { return code.address(); }
}
