package dev.bpf4j.analysis;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.runtime.HelperIds;

/**
 * Proves loads and stores through pointers into the run's data buffer, as the kernel verifier
 * tracks {@code PTR_TO_PACKET} with a {@code range} learnt from {@code if (p + n > data_end)}
 * tests. It applies to the data-buffer convention ({@code LoadOptions.entryArgs() >= 2}: entry
 * r1 = data, r2 = len) and only to the main function's entry from the host, where it assumes:
 * {@code [data, data + len)} lies inside one region of the run and {@code data + len < 2^63}. Those
 * are facts about the RunContext, so an engine only uses these proofs in a copy of main that an
 * entry guard picks when they hold: the JIT's {@code EntryGuard} (docs/jit-performance.md), the jvm
 * engine's {@code JvmMachine.reset} (docs/jvm-engine.md). Neither makes the copy when main is also
 * called as a function (its r1/r2 are then not the entry's) or when {@link #packetMayMove}.
 *
 * <p>Under those facts the exploration of {@link StackProof} also tracks {@code data + V + [lo, hi]}
 * (V a variable offset: a bounded scalar added to a packet pointer), {@code end = data + len} and
 * len itself ({@link RegionTransfer}, {@link RegionFacts}). An access is proven when on every state
 * reaching it it is inside the frame (as for StackProof) or inside {@code [data, data + range)}.
 */
public final class RegionProof {
    private RegionProof() {}

    /**
     * {@code result[pc]} true: the plain load or store at pc is, on every path from the main
     * function's entry under the facts above, inside the current frame or inside the data buffer.
     */
    public static boolean[] provenAccesses(Insn[] insns, int startPc, int endPc, StackProof.Budget budget) {
        return StackProof.prove(insns, startPc, endPc, AbstractState.regionEntry(), budget);
    }

    /**
     * The ctx form: entry r1 = a kernel-style ctx holding {@code __u32 data} at {@code dataOff} and
     * {@code __u32 data_end} at {@code endOff}. Assumes, besides the facts above for
     * {@code [data, data_end)}: the ctx bytes {@code [ctx, ctx + max(dataOff, endOff) + 4)} lie inside
     * one region (loads there are proven too) and {@code data <= data_end < 2^32}. A 4-byte load of a
     * field gives data + 0 or the end only until the first store, atomic or call: anything written
     * may be those fields, and a helper may move the packet. Values loaded before stay valid: the
     * JIT proves nothing in a program that calls a helper moving the packet
     * ({@code HelperIds.changesPacketData}), so for the programs proven here the regions do not change.
     */
    public static CtxProof provenCtxAccesses(Insn[] insns, int startPc, int endPc, int dataOff, int endOff,
                                             StackProof.Budget budget) {
        AbstractState entry = AbstractState.ctxEntry(dataOff, endOff, insns.length);
        boolean[] proven = StackProof.prove(insns, startPc, endPc, entry, budget);
        byte[] seen = entry.facts().fieldLoads();
        byte[] fields = new byte[insns.length];
        for (int pc = startPc; pc < endPc; pc++) {
            if (!proven[pc]) continue; // (no proofs at all when the exploration gave up)
            if (seen[pc] == RegionFacts.LOADED_DATA) fields[pc] = CtxProof.DATA;
            else if (seen[pc] == RegionFacts.LOADED_END) fields[pc] = CtxProof.DATA_END;
        }
        return new CtxProof(proven, fields);
    }

    /**
     * The ctx form's result: {@code proven[pc]} as for {@link #provenAccesses}; {@code fields[pc]}
     * {@link #DATA} or {@link #DATA_END} when the load at pc read that ctx field on every path, before
     * anything could change it: it must give the value the entry guard checked, so the JIT loads that
     * value rather than reading the ctx again (another thread could change it in between).
     */
    public record CtxProof(boolean[] proven, byte[] fields) {
        public static final byte DATA = 1, DATA_END = 2;
    }

    /**
     * True when the program calls a helper that may move the packet ({@code bpf_xdp_adjust_head}, ...):
     * the proofs assume the packet bounds of the entry for the whole run, so such a program keeps
     * every packet access checked against the run's current region table.
     */
    public static boolean packetMayMove(Insn[] insns) {
        for (Insn i : insns) {
            if (i.opcode() == (Opcodes.JMP | Opcodes.CALL) && i.src() == Opcodes.CALL_HELPER
                    && HelperIds.changesPacketData(i.imm())) return true;
        }
        return false;
    }

    /** As above with a budget of its own. */
    public static boolean[] provenAccesses(Insn[] insns, int startPc, int endPc) {
        return provenAccesses(insns, startPc, endPc, new StackProof.Budget());
    }
}
