package dev.bpf4j.jit;

import dev.bpf4j.jit.compiler.NativeFormEmitter;
import dev.bpf4j.jit.runtime.ExecutableMemory;
import dev.bpf4j.jit.runtime.JitExecutable;
import dev.bpf4j.runtime.HelperSpec;
import dev.bpf4j.runtime.NativeForm;
import dev.bpf4j.unwind.CfaRule;
import dev.bpf4j.unwind.CodeMap;
import dev.bpf4j.unwind.CodeRegion;
import dev.bpf4j.unwind.UnwindRow;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Helpers bound to the native code of their {@link NativeForm} (bpf_ktime_get_ns,
 * bpf_ktime_get_boot_ns, bpf_get_smp_processor_id, bpf_get_current_pid_tgid,
 * bpf_get_prandom_u32): one function per form, generated on first use and kept for the life of the JVM (under 200 bytes each, shared by
 * every program).
 */
final class NativeForms {
    private NativeForms() {}

    private static final ConcurrentHashMap<NativeForm, ExecutableMemory> CODE = new ConcurrentHashMap<>();

    /** The code map symbol of helper {@code name}'s native form. */
    static String symbol(String name) { return "bpf4j_native_" + name; }

    /** {@code -Dbpf4j.jit.nativeHelpers=false} calls the Java bodies instead (read at each load, for A/B timing). */
    static boolean enabled() { return !"false".equals(System.getProperty("bpf4j.jit.nativeHelpers")); }

    static HelperBinding bind(HelperSpec spec) {
        ExecutableMemory code = CODE.computeIfAbsent(spec.nativeForm(), f -> map(f, spec.name()));
        return HelperBinding.nativeCode(spec.id(), spec.name(), code.address(), code);
    }

    /** Maps the form's function and registers it with the code map, for the life of the JVM. */
    private static ExecutableMemory map(NativeForm form, String name) {
        return mapRegistered(NativeFormEmitter.code(form), symbol(name));
    }

    /**
     * Maps {@code f} and registers it with the code map as {@code symbol} (so the perf map names it and
     * a sample inside it unwinds exactly, as in a JIT function), for the life of the JVM.
     */
    static ExecutableMemory mapRegistered(NativeFormEmitter.Function f, String symbol) {
        ExecutableMemory code = ExecutableMemory.of(f.code());
        CodeMap.global().register(new CodeRegion(code.address(), code.size(), symbol, JitExecutable.MODULE, List.of(
                new UnwindRow(0, f.pushed(), CfaRule.RETURN_AT_SP),
                new UnwindRow(f.pushed(), f.framed(), CfaRule.RETURN_AT_SP_PLUS_8),
                new UnwindRow(f.framed(), f.ret(), CfaRule.FRAME_POINTER),
                new UnwindRow(f.ret(), f.ret() + 1, CfaRule.RETURN_AT_SP))));
        return code;
    }
}
