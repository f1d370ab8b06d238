package dev.bpf4j.runtime;

import java.util.Objects;

/**
 * A helper as a program sees it: its id (the imm of {@code call}), its kernel name and its Java body.
 *
 * @param lookupInlining   when not null, where an engine may inline the helper (see {@link LookupInlining})
 * @param forwardArguments the helper reads and writes through a pointer argument {@code p} only in
 *                         {@code [p, p + n)} (the kernel's model of a helper's memory arguments, e.g. a
 *                         map key of {@code key_size} bytes) and runs no program code (no callbacks).
 *                         Engines then need not zero the stack below a frame pointer passed to it
 *                         ({@code StackUse.bytesToZero}); a helper that broke the promise could see
 *                         bytes the engines leave different.
 * @param nativeForm       when not null, what the helper computes as native calls a JIT may make
 *                         itself (see {@link NativeForm}); the body must compute exactly that
 */
public record HelperSpec(int id, String name, Helper body, LookupInlining lookupInlining, boolean forwardArguments,
                         NativeForm nativeForm) {
    public HelperSpec {
        Objects.requireNonNull(name);
        Objects.requireNonNull(body);
    }

    public HelperSpec(int id, String name, Helper body) { this(id, name, body, null, false, null); }

    public HelperSpec(int id, String name, Helper body, LookupInlining lookupInlining, boolean forwardArguments) {
        this(id, name, body, lookupInlining, forwardArguments, null);
    }
}
