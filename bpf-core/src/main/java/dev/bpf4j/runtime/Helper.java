package dev.bpf4j.runtime;

/**
 * A helper function written in Java, called with BPF r1-r5; its result becomes r0. Throw a
 * {@link BpfRuntimeException} (via {@link HelperCall#badArgument}) to end the run with an error.
 */
@FunctionalInterface
public interface Helper {
    long call(HelperCall call, long r1, long r2, long r3, long r4, long r5);
}
