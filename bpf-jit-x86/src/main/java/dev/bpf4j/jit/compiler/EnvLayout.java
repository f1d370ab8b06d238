package dev.bpf4j.jit.compiler;

/**
 * The per-run environment block that r12 points at: status and error words the native code
 * writes, counters it updates, the fast-path region cache and the region table it checks
 * accesses against. All fields are 8 bytes, little-endian.
 */
public final class EnvLayout {
    private EnvLayout() {}

    /** 0 while running normally; one of the STATUS_* values once the run must end. */
    public static final int STATUS = 0;
    public static final int ERR_KIND = 8;
    /** Descriptor of the failed access or the pc of the failed jump/call: see {@link AccessDescriptor}. */
    public static final int ERR_DESC = 16;
    public static final int ERR_ADDR = 24;
    /** Budget events left; a {@code sub ..., 1} that borrows ends the run. */
    public static final int BUDGET = 32;
    /** rbp of the main program's frame: the end of the live-frame chain. */
    public static final int ENTRY_RBP = 40;
    /** Live BPF frames, the entry frame included. */
    public static final int DEPTH = 48;
    /** pc of the helper call in progress. */
    public static final int CUR_PC = 56;
    /** rbp of the function making the helper call: the innermost live frame. */
    public static final int CUR_RBP = 64;
    /** r0 requested by {@code HelperCall.exit}. */
    public static final int EXIT_R0 = 72;
    /** Scratch slot (saved rax in fetch loops). */
    public static final int SCRATCH = 80;
    /** Fast-path region for reads: first address, last address an 8-byte access may start at. */
    public static final int FAST_R_START = 88;
    public static final int FAST_R_LAST = 96;
    public static final int FAST_W_START = 104;
    public static final int FAST_W_LAST = 112;
    /** Initial r1..r5. */
    public static final int ARGS = 120;
    /**
     * In the ctx form of the guarded copy (entryArgs 1, so the r2/r3 slots are unused): the packet's
     * data and data_end the entry guard checked, which the copy's proven loads of those ctx fields take.
     */
    public static final int CTX_DATA = ARGS + 8, CTX_DATA_END = ARGS + 16;
    /** rbp of the native frame that saved the caller's callee-saved registers: where the error exit returns from. */
    public static final int EXIT_RBP = 160;
    /** The packet LD ABS/IND read: start address and length in bytes (RunContext.packet). */
    public static final int PKT_ADDR = 168;
    public static final int PKT_LEN = 176;
    /** rsp of that native frame once it pushed the callee-saved registers: the error exit pops from here. */
    public static final int EXIT_RSP = 184;
    /** Native address of the tail-call entry to jump to when STATUS is STATUS_TAIL_CALL. */
    public static final int TAIL_TARGET = 192;
    /** Helper scratch buffers (HelperCall.scratch): one of 512 bytes per frame depth 1..8, from this address. */
    public static final int SCRATCH_BASE = 200;
    /** Bit d set: the buffer of the helper call made at depth d is readable (for the call's duration). */
    public static final int SCRATCH_LIVE = 208;
    /** Id of the Java helper being called: JIT code stores it here and passes r12 to the bridge in r9. */
    public static final int HELPER_ID = 216;
    /**
     * 0 for a block of a Java {@code run} (the bridge finds the run through its thread); otherwise
     * the id of the direct run owner ({@code DirectRuns}) whose template native code (a probe
     * trampoline) built this block.
     */
    public static final int OWNER = 224;
    public static final int REGION_COUNT = 232;
    /**
     * The sk_buff's network and mac headers as signed offsets from PKT_ADDR, which LD ABS/IND at
     * SKF_NET_OFF / SKF_LL_OFF read past ({@code LegacyPacketOffsets}; NO_HEADER when there are none).
     */
    public static final int PKT_NET_OFF = 240, PKT_MAC_OFF = 248;
    /** Region table: {start, end, writable} per region. */
    public static final int REGIONS = 256;
    public static final int REGION_SIZE = 24;
    public static final int REGION_END = 8;
    public static final int REGION_WRITABLE = 16;

    public static final long STATUS_NATIVE_ERROR = 1, STATUS_HELPER_ERROR = 2, STATUS_EXIT = 3,
            STATUS_TAIL_CALL = 4;
    /** A Java helper was called on a thread that may not run Java ({@link JavaThreadGate}): the run ends, the hit counts as missed. */
    public static final long STATUS_NO_JAVA = 5;

    /** Error kinds the native code records (ErrorKind ordinals are not used: keep this stable). */
    public static final long KIND_OUT_OF_BOUNDS = 1, KIND_BUDGET = 2, KIND_CALL_DEPTH = 3,
            KIND_MISALIGNED_ATOMIC = 4;

    public static int sizeFor(int regions) { return REGIONS + regions * REGION_SIZE; }
}
