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
 * bpf_get_prandom_u32; bpf_probe_read, _user, _kernel, their _str forms and bpf_ringbuf_output, _reserve, _submit, _discard, _query as a fast path of some call sites): one function per form, generated on first use and kept for the life of
 * the JVM (under 200 bytes each, shared by every program).
 */
final class NativeForms {
    private NativeForms() {}

    private static final ConcurrentHashMap<NativeForm, ExecutableMemory> CODE = new ConcurrentHashMap<>();

    /** The code map symbol of helper {@code name}'s native form. */
    static String symbol(String name) { return "bpf4j_native_" + name; }

    /** {@code -Dbpf4j.jit.nativeHelpers=false} calls the Java bodies instead (read at each load, for A/B timing). */
    static boolean enabled() { return Switches.on("bpf4j.jit.nativeHelpers"); }

    /**
     * The Java body's binding with the form's native code as a fast path for the call sites the form
     * allows ({@link NativeForm.ProbeRead}, {@link NativeForm.ProbeReadStr}: the JIT calls the body everywhere else).
     */
    static HelperBinding bindWithFastPath(HelperSpec spec) {
        ExecutableMemory code = CODE.computeIfAbsent(spec.nativeForm(), f -> map(f, spec.name()));
        return new HelperBinding(spec.id(), spec.name(), HelperUpcall.address(), true, null, spec.lookupInlining(),
                spec.forwardArguments(), new HelperBinding.FastPath(spec.nativeForm(), code.address(), code));
    }

    /** Whether {@code form} serves some call sites only (the body stays bound): {@link #bindWithFastPath}. */
    static boolean isFastPath(NativeForm form) {
        return form instanceof NativeForm.ProbeRead || form instanceof NativeForm.ProbeReadStr || form instanceof NativeForm.RingBufOutput
                || form instanceof NativeForm.RingBufReserve || form instanceof NativeForm.RingBufCommit || form instanceof NativeForm.RingBufQuery;
    }

    static HelperBinding bind(HelperSpec spec) {
        ExecutableMemory code = CODE.computeIfAbsent(spec.nativeForm(), f -> map(f, spec.name()));
        return HelperBinding.nativeCode(spec.id(), spec.name(), code.address(), code);
    }

    /** Maps the form's function and registers it with the code map, for the life of the JVM. */
    private static ExecutableMemory map(NativeForm form, String name) {
        return GeneratedFunctions.map(NativeFormEmitter.code(form), symbol(name));
    }
}
