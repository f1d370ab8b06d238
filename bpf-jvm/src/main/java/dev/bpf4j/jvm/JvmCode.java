package dev.bpf4j.jvm;

/**
 * What each generated hidden class implements: runs from {@code pc} (an entry point of one of its
 * regions) with the registers in {@code r} until control leaves the region, and says where to go on.
 */
interface JvmCode {
    /** Leaving codes; a value of 0 or more is the pc to continue at. */
    int EXIT = -1;
    /** A helper ended the run or asked for a tail call ({@link JvmMachine#stop}). */
    int STOP = -2;
    /** {@code CALL_BASE - pc}: a {@code call local} at pc, its budget already spent. */
    int CALL_BASE = -3;

    int run(JvmMachine m, long[] r, int pc);
}
