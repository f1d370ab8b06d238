package dev.bpf4j.analysis;

import java.util.Arrays;

/**
 * What one {@link AbstractState} knows about the run's data buffer (entry r1 = data, r2 = len;
 * see {@link RegionProof}): the interval of len, and per <em>variable id</em> the bounds of that
 * variable and its proven <b>range</b>. A packet pointer is {@code data + V(id) + K}; V(0) is 0, any
 * other V is a scalar added to a pointer at the pc the id names (the kernel's {@code id} of a
 * {@code PTR_TO_PACKET} with a variable offset). "range r for id" means {@code V(id) + r <= len}:
 * the bytes {@code [data + V, data + V + r)} lie in the buffer. For id 0 the range is {@code lenLo}.
 */
final class RegionFacts {
    /** Bounds of len; at most {@code 2^63 - 1} (the entry guard checks that data + len does not reach 2^63). */
    long lenLo, lenHi = Long.MAX_VALUE;
    /** len bounds past this add nothing to a range (keeps range arithmetic far from overflow). */
    private static final long LARGE = 1L << 40;
    /** {id, vlo, vhi, range} per variable, sorted by id. */
    private long[] e = new long[0];
    /** Kernel-style ctx form: the offsets of {@code __u32 data} and {@code data_end} in the ctx (-1: data-buffer form). */
    private int ctxData = -1, ctxEnd = -1;
    /** Something may have written those fields since entry (a store, atomic or call): loads of them are unknown. */
    boolean ctxMoved;
    /**
     * Shared by every state of one exploration (not part of a state): per pc, what its loads gave
     * (bit 1 data, 2 data_end, 4 anything else), so the JIT can use the values its guard checked.
     */
    private byte[] fieldLoads;

    /** The ctx form: len = data_end - data, which the entry guard checks is in [0, 2^32). */
    static RegionFacts ctx(int dataOff, int endOff, int slots) {
        RegionFacts f = new RegionFacts();
        f.ctxData = dataOff;
        f.ctxEnd = endOff;
        f.lenHi = 0xffffffffL;
        f.fieldLoads = new byte[slots];
        return f;
    }

    static final byte LOADED_DATA = 1, LOADED_END = 2, LOADED_OTHER = 4;

    /** Notes what the load at pc gave on one path ({@link AbstractState#PACKET} for data, END, or anything else). */
    void noteLoad(int pc, byte kind) {
        if (fieldLoads == null) return;
        fieldLoads[pc] |= kind == AbstractState.PACKET ? LOADED_DATA : kind == AbstractState.END ? LOADED_END : LOADED_OTHER;
    }

    byte[] fieldLoads() { return fieldLoads; }

    boolean hasCtx() { return ctxData >= 0; }

    /** What a 4-byte zero-extending load at exact ctx offset {@code off} gives: PACKET, END or SCALAR (not a field). */
    byte ctxField(long off) {
        if (!hasCtx() || ctxMoved) return AbstractState.SCALAR;
        return off == ctxData ? AbstractState.PACKET : off == ctxEnd ? AbstractState.END : AbstractState.SCALAR;
    }

    /** Bytes {@code [0, ctxExtent())} of the ctx are checked readable by the entry guard (0: data-buffer form). */
    long ctxExtent() { return hasCtx() ? Math.max(ctxData, ctxEnd) + 4 : 0; }

    RegionFacts copy() {
        RegionFacts f = new RegionFacts();
        f.lenLo = lenLo;
        f.lenHi = lenHi;
        f.ctxData = ctxData;
        f.ctxEnd = ctxEnd;
        f.ctxMoved = ctxMoved;
        f.fieldLoads = fieldLoads;
        f.e = e; // copy on write
        return f;
    }

    private int find(long id) {
        for (int k = 0; k < e.length; k += 4) if (e[k] == id) return k;
        return -1;
    }

    /** How many variables (ids other than 0) the facts hold. */
    int variables() { return e.length / 4; }

    boolean has(int id) { return id == 0 || find(id) >= 0; }

    long vlo(int id) { return id == 0 ? 0 : e[find(id) + 1]; }

    long vhi(int id) { return id == 0 ? 0 : e[find(id) + 2]; }

    /** The proven range of id, also what len's lower bound implies ({@code V <= vhi}). */
    long range(int id) {
        if (id == 0) return lenLo;
        int k = find(id);
        return Math.max(e[k + 3], Math.min(lenLo, LARGE) - e[k + 2]);
    }

    /** A new variable {@code id} in {@code [vlo, vhi]} whose range is {@code range}. */
    void define(int id, long vlo, long vhi, long range) {
        remove(id);
        long[] n = Arrays.copyOf(e, e.length + 4);
        n[e.length] = id;
        n[e.length + 1] = vlo;
        n[e.length + 2] = vhi;
        n[e.length + 3] = range;
        e = n;
        sort();
    }

    void remove(int id) {
        int k = find(id);
        if (k < 0) return;
        long[] n = new long[e.length - 4];
        System.arraycopy(e, 0, n, 0, k);
        System.arraycopy(e, k + 4, n, k, e.length - k - 4);
        e = n;
    }

    /** Keeps only the ids {@code used} says are still held by some register or slot. */
    void retain(java.util.function.IntPredicate used) {
        for (int k = e.length - 4; k >= 0; k -= 4) if (!used.test((int) e[k])) remove((int) e[k]);
    }

    /**
     * {@code data + V(id) + k <= data + len} held on this path: raises the ranges; false when that
     * contradicts what is known of len (the path is infeasible).
     */
    boolean noteInside(int id, long k) {
        if (id == 0) {
            lenLo = Math.max(lenLo, k);
        } else {
            int at = find(id);
            e = e.clone();
            e[at + 3] = Math.max(e[at + 3], k);
            lenLo = Math.max(lenLo, e[at + 1] + k);
        }
        return lenLo <= lenHi;
    }

    /** True when every concrete situation this one allows, {@code other} allows too. */
    boolean within(RegionFacts other) {
        if (lenLo < other.lenLo || lenHi > other.lenHi || (ctxMoved && !other.ctxMoved)) return false;
        for (int k = 0; k < other.e.length; k += 4) {
            int id = (int) other.e[k];
            int mine = find(id);
            if (mine < 0 || e[mine + 1] < other.e[k + 1] || e[mine + 2] > other.e[k + 2] || range(id) < other.range(id)) return false;
        }
        return true;
    }

    private void sort() {
        int n = e.length / 4;
        long[][] rows = new long[n][];
        for (int i = 0; i < n; i++) rows[i] = Arrays.copyOfRange(e, 4 * i, 4 * i + 4);
        Arrays.sort(rows, (a, b) -> Long.compare(a[0], b[0]));
        for (int i = 0; i < n; i++) System.arraycopy(rows[i], 0, e, 4 * i, 4);
    }

    @Override public boolean equals(Object o) {
        return o instanceof RegionFacts f && f.lenLo == lenLo && f.lenHi == lenHi && f.ctxMoved == ctxMoved && f.ctxData == ctxData
                && f.ctxEnd == ctxEnd && Arrays.equals(f.e, e);
    }

    @Override public int hashCode() {
        long h = StateHash.add(StateHash.add(ctxMoved ? 1 : 0, lenLo), lenHi);
        for (long v : e) h = StateHash.add(h, v);
        return StateHash.finish(h);
    }

    @Override public String toString() {
        StringBuilder b = new StringBuilder("len=[" + lenLo + "," + lenHi + "]" + (ctxMoved ? " ctx-moved" : ""));
        for (int k = 0; k < e.length; k += 4) b.append(" v").append(e[k]).append("=[").append(e[k + 1]).append(',').append(e[k + 2]).append("]+").append(e[k + 3]);
        return b.toString();
    }
}
