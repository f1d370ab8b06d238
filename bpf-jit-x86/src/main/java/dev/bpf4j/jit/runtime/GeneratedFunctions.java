package dev.bpf4j.jit.runtime;

import dev.bpf4j.jit.compiler.JniRoute;
import dev.bpf4j.jit.compiler.NativeFormEmitter;
import dev.bpf4j.jit.compiler.Switches;
import dev.bpf4j.jit.compiler.UpcallEmitter;
import dev.bpf4j.unwind.CfaRule;
import dev.bpf4j.unwind.CodeMap;
import dev.bpf4j.unwind.CodeRegion;
import dev.bpf4j.unwind.UnwindRow;

import java.util.List;

/** Generated functions shared by every program (native forms of helpers, the JNI upcalls), mapped for the life of the JVM. */
public final class GeneratedFunctions {
    private GeneratedFunctions() {}

    /**
     * Maps {@code f} and registers it with the code map as {@code symbol} (so the perf map names it and
     * a sample inside it unwinds exactly, as in a JIT function), for the life of the JVM.
     */
    public static ExecutableMemory map(NativeFormEmitter.Function f, String symbol) {
        ExecutableMemory code = ExecutableMemory.of(f.code());
        CodeMap.global().register(new CodeRegion(code.address(), code.size(), symbol, JitExecutable.MODULE, List.of(
                new UnwindRow(0, f.pushed(), CfaRule.RETURN_AT_SP),
                new UnwindRow(f.pushed(), f.framed(), CfaRule.RETURN_AT_SP_PLUS_8),
                new UnwindRow(f.framed(), f.ret(), CfaRule.FRAME_POINTER),
                new UnwindRow(f.ret(), f.ret() + 1, CfaRule.RETURN_AT_SP))));
        return code;
    }

    /**
     * The JNI upcall function of {@code route} ({@link UpcallEmitter#code}),
     * mapped and registered as {@code symbol}; null when there is no route (the caller keeps {@code closure}).
     */
    public static ExecutableMemory jniUpcall(JniRoute route, long closure, int args, int envArg, int missedArg, String symbol) {
        return route == null ? null : map(UpcallEmitter.code(route, closure, args, envArg, missedArg, HotSpotThreads.gate()), symbol);
    }

    /** {@code -Dbpf4j.jit.jniUpcall=false} keeps the jffi closures (read at each use, for A/B timing). */
    public static boolean jniUpcalls() { return Switches.on("bpf4j.jit.jniUpcall"); }
}
