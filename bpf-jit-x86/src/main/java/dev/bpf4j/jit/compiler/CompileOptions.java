package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.HelperBinding;
import dev.bpf4j.runtime.PacketContext;
import dev.bpf4j.verifier.InsnAux;

import java.util.Map;

/**
 * What one compile is asked for: the target of every helper the program calls, how many entry
 * arguments it takes, whether LD ABS/IND are allowed ({@code LoadOptions.legacyPacketLoads}),
 * where a kernel-style ctx holds the packet pointers ({@code LoadOptions.packetContext}, may be
 * null), the verifier's facts ({@code aux}, null for an unverified program), whether budget
 * counting is left out ({@code elideBudget}: the verifier bounded the program's budget events) and
 * whether the caller already applied {@code EngineGuard.check} ({@code guarded}: the engine does it
 * once per load, before binding helpers; a direct compile leaves it to {@link CompileFacts}).
 */
public record CompileOptions(Map<Integer, HelperBinding> helpers, int entryArgs, boolean legacyPacketLoads,
                             PacketContext packetContext, InsnAux aux, boolean elideBudget, boolean guarded) {
    public CompileOptions { helpers = Map.copyOf(helpers); }

    /** An unverified program without legacy packet loads, packet context or budget elision. */
    public static CompileOptions of(Map<Integer, HelperBinding> helpers, int entryArgs) {
        return new CompileOptions(helpers, entryArgs, false, null, null, false, false);
    }

    public CompileOptions withLegacyPacketLoads(boolean on) {
        return new CompileOptions(helpers, entryArgs, on, packetContext, aux, elideBudget, guarded);
    }

    public CompileOptions withPacketContext(PacketContext ctx) {
        return new CompileOptions(helpers, entryArgs, legacyPacketLoads, ctx, aux, elideBudget, guarded);
    }

    /** The verifier's facts: a checked access it did not type as a stack pointer never reaches a frame. */
    public CompileOptions withAux(InsnAux facts) {
        return new CompileOptions(helpers, entryArgs, legacyPacketLoads, packetContext, facts, elideBudget, guarded);
    }

    /** The caller applied {@code EngineGuard.check} with these options' {@link #legacyPacketLoads}: the compile does not again. */
    public CompileOptions withGuarded(boolean on) {
        return new CompileOptions(helpers, entryArgs, legacyPacketLoads, packetContext, aux, elideBudget, on);
    }

    public CompileOptions withElideBudget(boolean on) {
        return new CompileOptions(helpers, entryArgs, legacyPacketLoads, packetContext, aux, on, guarded);
    }
}
