package dev.bpf4j.jit.runtime;

import dev.bpf4j.jit.HelperBinding;
import dev.bpf4j.jit.compiler.NativeStackIdEmitter;
import dev.bpf4j.jit.compiler.Switches;
import dev.bpf4j.runtime.HelperSpec;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.stack.ConfirmedSteps;
import dev.bpf4j.stack.StackHelpers;
import dev.bpf4j.stack.StackMapHandles;
import dev.bpf4j.stack.ThreadStackTops;
import dev.bpf4j.unwind.CfaRule;
import dev.bpf4j.unwind.CodeMap;
import dev.bpf4j.unwind.CodeRegion;
import dev.bpf4j.unwind.UnwindRow;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code bpf_get_stackid} and {@code bpf_get_stack} bound to native code ({@link NativeStackIdEmitter}) in programs whose helper
 * is the standard Java body over the global stack source: for runs a probe trampoline starts itself
 * it computes the Java helper's result natively, and hands every other case to that Java helper,
 * which stays bound too (the bridge serves it). One function per helper and bridge address, kept for the life of
 * the JVM and registered with the code map as {@value #SYMBOL}.
 */
public final class NativeStackId {
    private NativeStackId() {}

    public static final String SYMBOL = "bpf4j_native_bpf_get_stackid", STACK_SYMBOL = "bpf4j_native_bpf_get_stack";

    /** By bridge address: bpf_get_stackid's function, and bpf_get_stack's. */
    private static final ConcurrentHashMap<Long, ExecutableMemory> CODE = new ConcurrentHashMap<>(), STACK_CODE = new ConcurrentHashMap<>();
    /** Native results and fallbacks to Java, for tests and benchmarks ({@link NativeStackIdEmitter#NATIVE_RESULTS}). */
    private static final long COUNTERS = counters();

    /** {@code -Dbpf4j.jit.nativeStackId=false} keeps the Java helper (read at each load, for A/B runs and differential tests). */
    static boolean enabled() { return Switches.on("bpf4j.jit.nativeStackId"); }

    /** True when {@code spec} may be bound natively: the standard body, over the global source, with the thread bounds key. */
    static boolean applies(HelperSpec spec) {
        if (!enabled() || !ThreadStackTops.available()) return false;
        return spec.body() instanceof StackHelpers.GetStackId g ? g.overGlobalSource()
                : spec.body() instanceof StackHelpers.GetStack s && s.overGlobalSource();
    }

    static HelperBinding bind(HelperSpec spec) {
        long bridge = HelperUpcall.address();
        boolean stack = spec.body() instanceof StackHelpers.GetStack;
        ExecutableMemory code = (stack ? STACK_CODE : CODE).computeIfAbsent(bridge, b -> map(b, stack));
        return HelperBinding.nativeCode(spec.id(), spec.name(), code.address(), code);
    }

    /** Hits the native code answered itself. */
    public static long nativeResults() { return NativeMemory.getLongVolatile(COUNTERS + NativeStackIdEmitter.NATIVE_RESULTS); }

    /** Calls the native code handed to the Java helper. */
    public static long fallbacks() { return NativeMemory.getLongVolatile(COUNTERS + NativeStackIdEmitter.FALLBACKS); }

    private static ExecutableMemory map(long bridge, boolean stack) {
        NativeStackIdEmitter.Code f = NativeStackIdEmitter.code(new NativeStackIdEmitter.Targets(ConfirmedSteps.global().address(),
                StackMapHandles.global().address(), ThreadStackTops.key(), ThreadStackTops.getspecific(), bridge, COUNTERS), stack);
        ExecutableMemory code = ExecutableMemory.of(f.code());
        int end = f.code().length;
        CodeMap.global().register(new CodeRegion(code.address(), code.size(), stack ? STACK_SYMBOL : SYMBOL, JitExecutable.MODULE, List.of(
                new UnwindRow(0, f.pushed(), CfaRule.RETURN_AT_SP),
                new UnwindRow(f.pushed(), f.framed(), CfaRule.RETURN_AT_SP_PLUS_8),
                new UnwindRow(f.framed(), f.afterLeave(), CfaRule.FRAME_POINTER),
                new UnwindRow(f.afterLeave(), end, CfaRule.RETURN_AT_SP))));
        return code;
    }

    private static long counters() {
        long a = NativeMemory.allocate(16);
        NativeMemory.setMemory(a, 16, (byte) 0);
        return a;
    }
}
