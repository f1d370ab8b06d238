package dev.bpf4j.verifier;

import dev.bpf4j.runtime.LoadOptions;

/**
 * Instruction families the validator rejects by default but a later loader or program type may
 * switch on. Keeping them here (not scattered through the checks) is what lets an option allow
 * them without touching the checks themselves.
 *
 * @param legacyPacketLoads accept {@code LD ABS/IND} (socket filters); they read r6 (the context)
 *                          and, like a call, set r0 and clobber r1-r5
 * @param pseudoLddw        accept {@code lddw} with a pseudo source (src 1-6: map fd, map value,
 *                          BTF id, function, map index); an object loader must resolve them first
 */
public record ValidatorFeatures(boolean legacyPacketLoads, boolean pseudoLddw) {
    /** What runs today: plain RFC 9669 instructions, {@code lddw} with src 0 only. */
    public static final ValidatorFeatures DEFAULT = new ValidatorFeatures(false, false);

    /** The features {@code options} asks for (none can be requested through LoadOptions yet). */
    public static ValidatorFeatures from(LoadOptions options) { return DEFAULT; }

    public ValidatorFeatures withLegacyPacketLoads(boolean on) { return new ValidatorFeatures(on, pseudoLddw); }

    public ValidatorFeatures withPseudoLddw(boolean on) { return new ValidatorFeatures(legacyPacketLoads, on); }
}
