package dev.bpf4j.jit.runtime;

import dev.bpf4j.jit.compiler.NativeFormEmitter;
import dev.bpf4j.jit.compiler.Switches;
import dev.bpf4j.jit.HelperBinding;
import dev.bpf4j.runtime.HelperSpec;
import dev.bpf4j.runtime.NativeForm;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Helpers bound to the native code of their {@link NativeForm} (bpf_ktime_get_ns,
 * bpf_ktime_get_boot_ns, bpf_get_smp_processor_id, bpf_get_current_pid_tgid,
 * bpf_get_prandom_u32): one function per form, generated on first use and kept for the life of
 * the JVM (under 200 bytes each, shared by every program).
 */
final class NativeForms {
    private NativeForms() {}

    private static final ConcurrentHashMap<NativeForm, ExecutableMemory> CODE = new ConcurrentHashMap<>();

    /** The code map symbol of helper {@code name}'s native form. */
    static String symbol(String name) { return "bpf4j_native_" + name; }

    /** {@code -Dbpf4j.jit.nativeHelpers=false} calls the Java bodies instead (read at each load, for A/B timing). */
    static boolean enabled() { return Switches.on("bpf4j.jit.nativeHelpers"); }

    static HelperBinding bind(HelperSpec spec) {
        ExecutableMemory code = CODE.computeIfAbsent(spec.nativeForm(), f -> map(f, spec.name()));
        return HelperBinding.nativeCode(spec.id(), spec.name(), code.address(), code);
    }

    /** Maps the form's function and registers it with the code map, for the life of the JVM. */
    private static ExecutableMemory map(NativeForm form, String name) {
        return GeneratedFunctions.map(NativeFormEmitter.code(form), symbol(name));
    }
}
