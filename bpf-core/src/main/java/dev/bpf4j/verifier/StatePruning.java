package dev.bpf4j.verifier;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * When a state reaching an instruction can stop being explored ({@code states_equal}): an earlier
 * state at the same instruction that was (or is being) explored covers it, register by register and
 * stack byte by stack byte. And, where the kernel would unroll a loop until its counter ends and
 * that passes the complexity limit, the widening that lets bpf4j stop sooner: once one path has come
 * back to a loop head more than {@link #WIDEN_AFTER} times, bounds that grew since the last state
 * kept there are opened up to the end they grew towards, so the next round is covered.
 */
final class StatePruning {
    private StatePruning() {}

    /**
     * Rounds of one loop a path is followed exactly before it is widened, in the second exploration
     * only: the first follows every round, as Linux does, and is given up for this one only when it
     * passes a complexity limit with a path past this many rounds (Validator).
     */
    static final int WIDEN_AFTER = 4096;

    /**
     * True when every execution from {@code cur} is one that {@code old} already stood for, or differs from
     * one only in scalars of the innermost frame whose values nothing from here on reads ({@code precision};
     * null: every scalar compared by range).
     */
    static boolean covers(VerifierState old, VerifierState cur, PrecisionLiveness precision) {
        if (old.frames.size() != cur.frames.size()) return false;
        // refsafe: as many references held (their ids differ path by path; the registers holding them compare below)
        if (old.refs.size() != cur.refs.size()) return false;
        int last = old.frames.size() - 1;
        for (int i = last; i >= 0; i--) { // innermost first: states at one instruction differ there most often
            FuncState o = old.frames.get(i), c = cur.frames.get(i);
            if (o.callsite != c.callsite || o.subprogStart != c.subprogStart || o.callback != c.callback) return false;
            // callers' frames compare every register: what their registers feed after the return is not tracked
            int needed = precision != null && i == last ? precision.mask(cur.pc) : ALL_NEEDED;
            for (int r = 0; r < o.regs.length; r++) if (!regCovers(o.regs[r], c.regs[r], (needed >> r & 1) != 0)) return false;
            if (!stackCovers(o, c)) return false;
        }
        return packetIdsCorrespond(old, cur);
    }

    /**
     * The kernel's check_ids for packet pointers with a variable part: pointers that share an id in the
     * old state (a comparison of one proves bytes for all) must share one in the current state, and the
     * other way round, or a proof the old state's paths relied on would not carry over.
     */
    private static boolean packetIdsCorrespond(VerifierState old, VerifierState cur) {
        if (!hasPacketId(old) && !hasPacketId(cur)) return true; // the common case: nothing to map
        Map<Integer, Integer> oldToCur = new HashMap<>(), curToOld = new HashMap<>();
        for (int i = 0; i < old.frames.size(); i++) {
            FuncState o = old.frames.get(i), c = cur.frames.get(i);
            for (int r = 0; r < o.regs.length; r++) if (!sameIds(o.regs[r], c.regs[r], oldToCur, curToOld)) return false;
            for (int s = 0; s < FuncState.SLOTS; s++) {
                if (o.spilled[s] != null && c.spilled[s] != null && !sameIds(o.spilled[s], c.spilled[s], oldToCur, curToOld)) return false;
            }
        }
        return true;
    }

    private static boolean hasPacketId(VerifierState st) {
        for (FuncState f : st.frames) {
            for (RegState r : f.regs) if (r.type == RegType.PTR_TO_PACKET && r.id != 0) return true;
            for (RegState r : f.spilled) if (r != null && r.type == RegType.PTR_TO_PACKET && r.id != 0) return true;
        }
        return false;
    }

    private static boolean sameIds(RegState o, RegState c, Map<Integer, Integer> oldToCur, Map<Integer, Integer> curToOld) {
        if (o.type != RegType.PTR_TO_PACKET || c.type != RegType.PTR_TO_PACKET || (o.id == 0 && c.id == 0)) return true;
        if (o.id == 0 || c.id == 0) return o.varRange == 0; // an old id no proof used
        Integer mapped = oldToCur.putIfAbsent(o.id, c.id), back = curToOld.putIfAbsent(c.id, o.id);
        return (mapped == null || mapped == c.id) && (back == null || back == o.id);
    }

    /**
     * An old NOT_INIT register covers anything: the paths from the old state never read it (a read
     * would have rejected the program). A scalar covers a scalar within its bounds; a pointer a
     * pointer of the same kind, offset and null-check identity whose variable part is within its own.
     */
    static boolean regCovers(RegState o, RegState c) { return regCovers(o, c, true); }

    private static final int ALL_NEEDED = -1;

    /**
     * As {@link #regCovers(RegState, RegState)}, but an old scalar whose value is not {@code needed} (no
     * decision from here on reads it, {@link PrecisionLiveness}) covers any scalar: its type still has to match,
     * since a read of a scalar is accepted where a read of an unset register is not.
     */
    static boolean regCovers(RegState o, RegState c, boolean needed) {
        if (!needed && o.type == RegType.SCALAR) return c.type == RegType.SCALAR;
        if (o.type == RegType.NOT_INIT) return true;
        if (o.type == RegType.SCALAR) return c.type == RegType.SCALAR && c.rangeWithin(o);
        return o.sameTarget(c) && (!o.type.maybeNull() || o.id == c.id) && c.range >= o.range && c.varRange >= o.varRange
                && (o.varRange == 0 || o.off == c.off) // varRange counts from the fixed offset's base
                && o.off + o.smin <= c.off + c.smin && c.off + c.smax <= o.off + o.smax;
    }

    private static boolean stackCovers(FuncState o, FuncState c) {
        if (Arrays.equals(o.stack, c.stack)) { // the common case: the same bytes, only spills to compare
            for (int s = 0; s < FuncState.SLOTS; s++) {
                if (o.stack[s * 8] == FuncState.STACK_SPILL && !regCovers(o.spilled[s], c.spilled[s])) return false;
            }
            return true;
        }
        for (int i = 0; i < o.stack.length; i++) {
            byte ob = o.stack[i], cb = c.stack[i];
            switch (ob) {
                case FuncState.STACK_INVALID: case FuncState.STACK_MISC:
                    // reads give an unknown scalar: anything but a spilled pointer reads the same or better
                    if (cb == FuncState.STACK_SPILL && c.spilled[i >> 3].type.isPointer()) return false;
                    break;
                case FuncState.STACK_ZERO:
                    if (cb != FuncState.STACK_ZERO) return false;
                    break;
                default: // SPILL: compare once per slot
                    if (cb != FuncState.STACK_SPILL) return false;
                    if ((i & 7) == 0 && !regCovers(o.spilled[i >> 3], c.spilled[i >> 3])) return false;
            }
        }
        return true;
    }

    /** Opens the bounds of {@code cur} that grew past those of {@code prev}, the last state kept at this instruction. */
    static void widen(VerifierState prev, VerifierState cur) {
        if (prev.frames.size() != cur.frames.size()) return;
        for (int i = 0; i < prev.frames.size(); i++) {
            FuncState p = prev.frames.get(i), c = cur.frames.get(i);
            for (int r = 0; r < p.regs.length; r++) widen(p.regs[r], c.regs[r]);
            for (int s = 0; s < FuncState.SLOTS; s++) {
                if (p.spilled[s] != null && c.spilled[s] != null) widen(p.spilled[s], c.spilled[s]);
            }
        }
    }

    private static void widen(RegState p, RegState c) {
        if (p.type == RegType.PTR_TO_PACKET && c.type == RegType.PTR_TO_PACKET) { // converge
            c.range = Math.min(c.range, p.range);
            c.varRange = Math.min(c.varRange, p.varRange);
        }
        if (p.type.isPointer() && p.sameTarget(c) && p.off != c.off) {
            p = p.copy(); // compare total offsets: the fixed part moves into the variable one
            p.setVar(p.off + p.smin, p.off + p.smax);
            c.setVar(c.off + c.smin, c.off + c.smax);
            p.off = c.off = 0;
        }
        boolean comparable = p.type == RegType.SCALAR ? c.type == RegType.SCALAR : p.sameKind(c);
        if (!comparable || c.rangeWithin(p)) return;
        if (c.smin < p.smin) c.smin = Long.MIN_VALUE;
        if (c.smax > p.smax) c.smax = Long.MAX_VALUE;
        if (Long.compareUnsigned(c.umin, p.umin) < 0) c.umin = 0;
        if (Long.compareUnsigned(c.umax, p.umax) > 0) c.umax = -1L;
        c.smin = Math.min(c.smin, p.smin);
        c.smax = Math.max(c.smax, p.smax);
        c.umin = Long.compareUnsigned(c.umin, p.umin) < 0 ? c.umin : p.umin;
        c.umax = Long.compareUnsigned(c.umax, p.umax) > 0 ? c.umax : p.umax;
        // the 32-bit bounds and known bits: dropped (a superset), so the next round is covered
        c.unbound32();
        c.tnum = Tnum.UNKNOWN;
    }

    /**
     * A kept state, with how often it covered a later one and how often it did not, and the
     * kernel's branch count ({@code bpf_verifier_state.branches}): the paths from it still being
     * explored. A state with branches left is on the path being explored, so a state it covers is a
     * later round of a loop through it.
     */
    static final class Kept {
        /** Null once dropped from its list: the branch counts of the paths through it still need the rest. */
        private VerifierState state;
        /** The kept state this one's path came through last (null: none since the entry). */
        final Kept parent;
        int hits, misses;
        int branches = 1;

        Kept(VerifierState state, Kept parent) {
            this.state = state;
            this.parent = parent;
        }

        VerifierState state() { return state; }

        /** Dropped from its instruction's list: the paths below still count branches through it, nothing compares it. */
        void evict() { state = null; }

        /** A path through this state ended: it and the kept states above it that have no path left are complete. */
        void pathEnded() {
            for (Kept k = this; k != null && --k.branches == 0; k = k.parent) { /* the kernel's update_branch_counts */ }
        }
    }

    /**
     * The kept state that covers {@code cur}, else null. A kept state that keeps missing is dropped, by the
     * kernel's rule ({@code is_state_visited}): more than {@code n * hits + n} misses, {@code n} = 3, or 64
     * for a loop head's state whose paths are still being explored (a loop's earlier round, which its later
     * rounds may need to converge). Dropping costs pruning, never soundness: the dropped state's paths are
     * explored (or still being explored) all the same, it only stops standing for later ones.
     */
    static Kept covering(List<Kept> kept, VerifierState cur, PrecisionLiveness precision, boolean loopHead) {
        for (int i = kept.size() - 1; i >= 0; i--) {
            Kept k = kept.get(i);
            if (covers(k.state, cur, precision)) {
                k.hits++;
                return k;
            }
            int n = loopHead && k.branches > 0 ? MISSES_PER_HIT_LOOP : MISSES_PER_HIT;
            if (++k.misses > n * k.hits + n) kept.remove(i).evict();
        }
        return null;
    }

    /** The kernel's eviction factors: misses a state may have per hit before it is dropped. */
    static final int MISSES_PER_HIT = 3, MISSES_PER_HIT_LOOP = 64;

    /**
     * What a covering state must share exactly: the call chain and each register's type and pointer
     * offset. States are kept in groups by it, so a lookup compares only states that can match.
     */
    static long shape(VerifierState st) {
        long h = st.frames.size();
        for (FuncState f : st.frames) {
            h = h * 31 + f.callsite;
            for (RegState r : f.regs) {
                h = h * 31 + r.type.ordinal();
                if (r.type.isPointer()) h = h * 31 + r.off + 17L * r.frameno;
            }
        }
        return h;
    }
}
