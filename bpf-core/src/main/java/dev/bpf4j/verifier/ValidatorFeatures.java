package dev.bpf4j.verifier;

import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.runtime.LoadOptions;

/**
 * Instruction families the validator rejects by default but a later loader or program type may
 * switch on. Keeping them here (not scattered through the checks) is what lets an option allow
 * them without touching the checks themselves.
 *
 * @param legacyPacketLoads accept {@code LD ABS/IND} (socket filters); they read r6 (the context)
 *                          and, like a call, set r0 and clobber r1-r5
 * @param pseudoLddw        accept {@code lddw} with any pseudo source (src 1-6: map fd, map value,
 *                          BTF id, function, map index); an object loader must resolve them first
 * @param funcAddresses     accept {@code lddw} with src 4 (function address, {@code BPF_PSEUDO_FUNC}):
 *                          its target starts a subprogram, the engines turn it into a callback handle
 */
public record ValidatorFeatures(boolean legacyPacketLoads, boolean pseudoLddw, boolean funcAddresses) {
    /** Plain RFC 9669 instructions, {@code lddw} with src 0 only. */
    public static final ValidatorFeatures DEFAULT = new ValidatorFeatures(false, false, false);

    public ValidatorFeatures(boolean legacyPacketLoads, boolean pseudoLddw) { this(legacyPacketLoads, pseudoLddw, false); }

    /**
     * What a load with {@code options} may use: function addresses always (the engines resolve
     * them), legacy packet loads when {@link LoadOptions#legacyPacketLoads()} asks for them; other
     * pseudo sources never (the object loader rewrites them to plain immediates).
     */
    public static ValidatorFeatures from(LoadOptions options) {
        return DEFAULT.withFuncAddresses(true).withLegacyPacketLoads(options.legacyPacketLoads());
    }

    public ValidatorFeatures withLegacyPacketLoads(boolean on) { return new ValidatorFeatures(on, pseudoLddw, funcAddresses); }

    public ValidatorFeatures withPseudoLddw(boolean on) { return new ValidatorFeatures(legacyPacketLoads, on, funcAddresses); }

    public ValidatorFeatures withFuncAddresses(boolean on) { return new ValidatorFeatures(legacyPacketLoads, pseudoLddw, on); }

    /** True when {@code lddw} with pseudo source {@code src} (1-6) is accepted. */
    boolean allowsPseudo(int src) { return pseudoLddw || (funcAddresses && src == Opcodes.PSEUDO_FUNC); }
}
