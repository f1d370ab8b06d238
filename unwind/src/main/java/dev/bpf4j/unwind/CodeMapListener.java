package dev.bpf4j.unwind;

/**
 * Told about every region a {@link CodeMap} gains or loses (perf maps, jitdump files, profilers).
 * Called on the registering thread after the change, under the map's lock, so calls arrive in
 * order; a listener must be quick and must not call back into the map. A listener that throws is
 * reported on stderr and kept: code generation never fails because a side channel did.
 */
public interface CodeMapListener {
    /** {@code region} has just been registered (its code is mapped and final). */
    void registered(CodeRegion region);

    /** {@code region} has just been unregistered (its code is about to be unmapped). */
    default void unregistered(CodeRegion region) {}
}
