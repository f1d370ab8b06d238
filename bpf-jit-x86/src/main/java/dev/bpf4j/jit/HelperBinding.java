package dev.bpf4j.jit;

import dev.bpf4j.runtime.LookupInlining;
import dev.bpf4j.runtime.NativeForm;

import java.util.Objects;

/**
 * Where the JIT's {@code call imm} goes: a native function address taking BPF r1-r5 in the SysV
 * argument registers and returning r0 in rax. Java helpers are bound to the bridge closure (which
 * also receives the helper id in r9); hot helpers can be bound to generated native code instead.
 *
 * @param keepAlive whatever must stay strongly reachable while code calls {@code address}
 *                  (a closure handle, executable pages)
 * @param lookupInlining where the helper may be inlined instead of called (a call site whose r1 is
 *                    an array or hash map's handle), or null
 * @param forwardArguments the helper's {@code HelperSpec.forwardArguments}: it accesses memory only at
 *                    and above its pointer arguments (false for native code)
 * @param fastPath    native code the JIT calls instead of {@code address} at the call sites its form
 *                    allows ({@code NativeForm.ProbeRead}: a destination in the caller's frame), or null
 */
public record HelperBinding(int id, String name, long address, boolean javaBridge, Object keepAlive, LookupInlining lookupInlining,
                            boolean forwardArguments, FastPath fastPath) {
    /** A helper's native code for some call sites only ({@code form} says which), at {@code address}, kept alive by {@code keepAlive}. */
    public record FastPath(NativeForm form, long address, Object keepAlive) {
        public FastPath {
            Objects.requireNonNull(form);
            if (address == 0) throw new IllegalArgumentException("fast path of " + form + " at address 0");
        }
    }

    public HelperBinding(int id, String name, long address, boolean javaBridge, Object keepAlive, LookupInlining lookupInlining,
                         boolean forwardArguments) {
        this(id, name, address, javaBridge, keepAlive, lookupInlining, forwardArguments, null);
    }

    public HelperBinding {
        Objects.requireNonNull(name);
        if (address == 0) throw new IllegalArgumentException("helper " + name + " bound to address 0");
    }

    /**
     * The key, in a program's bindings, of the Java bridge that {@code callx} calls: it stores the
     * register's value as the helper id, and the bridge looks the helper up when the call runs.
     */
    public static final int CALLX = Integer.MIN_VALUE;

    public HelperBinding(int id, String name, long address, boolean javaBridge, Object keepAlive) {
        this(id, name, address, javaBridge, keepAlive, null, false);
    }

    /** {@code forwardArguments} of the helper bound to {@code id} in {@code bindings}; false when there is none. */
    public static boolean forwardArguments(java.util.Map<Integer, HelperBinding> bindings, int id) {
        HelperBinding b = bindings.get(id);
        return b != null && b.forwardArguments();
    }

    /** A helper implemented as native code at {@code address}. */
    public static HelperBinding nativeCode(int id, String name, long address, Object keepAlive) {
        return new HelperBinding(id, name, address, false, keepAlive);
    }
}
