package dev.bpf4j.runtime;

import java.util.ArrayList;
import java.util.List;

/**
 * The run-time rules every engine applies the same way, with the same errors (kind, pc, text):
 * opening a call or callback frame, helper failures, callx lookups, tail calls (frame, the 33
 * limit, empty and foreign slots), helper scratch buffers, LD ABS/IND reads and packet moves
 * (docs/runtime-semantics.md). Engines keep their own state; the checks and the words live here once.
 */
public final class RunRules {
    private RunRules() {}

    /** {@code handle} must be a function address of the running program ({@code lddw src=4}). */
    public static void checkCallbackHandle(HelperCall call, boolean isFunction, long handle) {
        if (!isFunction) {
            throw call.badArgument(String.format("callback 0x%x is not a function address (lddw src=4) of program '%s'",
                    handle, call.programName()));
        }
    }

    /**
     * A callback opens a frame like {@code call local}: one budget unit first, then the depth, both
     * at the helper's pc. {@code budgetLeft} is the budget before this event; {@code depth} the
     * frames open now.
     */
    public static void checkFrameOpen(String program, int pc, long budgetLeft, long budgetLimit, long depth) {
        if (budgetLeft <= 0) throw BpfRuntimeException.budgetExceeded(program, pc, budgetLimit);
        checkCallDepth(program, pc, depth);
    }

    /** {@code call local} at {@code pc} with {@code depth} frames open (the main one included): one more must fit. */
    public static void checkCallDepth(String program, int pc, long depth) {
        if (depth >= Limits.MAX_CALL_FRAMES) throw BpfRuntimeException.callDepthExceeded(program, pc, Limits.MAX_CALL_FRAMES);
    }

    /** callx at {@code pc}: the helper of the load whose id register {@code reg} holds, or UNKNOWN_HELPER. */
    public static HelperSpec callxTarget(HelperRegistry registry, String program, int pc, int reg, long id) {
        HelperSpec spec = id == (int) id ? registry.lookup((int) id).orElse(null) : null;
        if (spec == null) throw BpfRuntimeException.unknownHelper(program, pc, reg, id);
        return spec;
    }

    /** A helper threw something other than a {@link BpfRuntimeException}: HELPER_FAILED at its pc, the throwable as cause. */
    public static BpfRuntimeException helperThrew(String program, int pc, String helperName, int id, Throwable thrown) {
        BpfRuntimeException failure = helperFailed(program, pc, helperName, id, "threw " + thrown);
        failure.initCause(thrown);
        return failure;
    }

    /** HELPER_FAILED at {@code pc}: "helper NAME (id ID) WHAT". */
    public static BpfRuntimeException helperFailed(String program, int pc, String helperName, int id, String what) {
        return new BpfRuntimeException(ErrorKind.HELPER_FAILED, program, pc, 0, "helper " + helperName + " (id " + id + ") " + what);
    }

    /**
     * The first steps of {@code bpf_tail_call} ({@link HelperCall#tailCall}), in the kernel's order:
     * only from the main program's frame (bpf4j's rule; depth 1), then the count. Returns false when
     * the run already made {@link Limits#MAX_TAIL_CALLS} tail calls (the call falls through, uncounted);
     * on true the engine counts this one once the slot turns out populated, as Linux's x86-64 and arm64
     * JITs do since 6.10 (its interpreter counts empty slots too).
     */
    public static boolean mayTailCall(String program, int pc, long depth, int made) {
        checkTailCallDepth(program, pc, depth);
        return made < Limits.MAX_TAIL_CALLS;
    }

    /** bpf4j allows tail calls only from the main program's frame (depth 1). */
    public static void checkTailCallDepth(String program, int pc, long depth) {
        if (depth != 1) {
            throw new BpfRuntimeException(ErrorKind.HELPER_FAILED, program, pc, 0, "bpf_tail_call from frame depth " + depth
                    + " (a subprogram or callback): bpf4j allows tail calls only from the main program's frame");
        }
    }

    /**
     * The call's slot: null when it is empty (the call falls through, uncounted), else the target as
     * the engine's executable type; a program another engine loaded ends the run with HELPER_FAILED.
     */
    public static <T> T tailCallTarget(String program, int pc, Object target, Class<T> executableType, String engine) {
        if (target == null) return null;
        if (!executableType.isInstance(target)) throw foreignTailCallTarget(program, pc, target, engine);
        return executableType.cast(target);
    }

    /** A prog-array slot holds a program another engine loaded: this engine cannot jump into it. */
    public static BpfRuntimeException foreignTailCallTarget(String program, int pc, Object target, String engine) {
        return new BpfRuntimeException(ErrorKind.HELPER_FAILED, program, pc, 0, "bpf_tail_call: the prog-array slot holds "
                + target.getClass().getName() + ", not a program loaded by the " + engine
                + " engine (fill prog arrays with executables of the engine that runs them)");
    }

    /**
     * Before a tail call's target runs: the main frame (top at {@code frameTop}, its top
     * {@code zeroed} bytes zeroed at entry) is zeroed wholly, since the target may read bytes the
     * caller never could, and they must read as zero unless the caller wrote them. Returns the bytes
     * now zeroed (the whole frame).
     */
    public static int defineMainFrame(long frameTop, int zeroed) {
        if (zeroed < Limits.STACK_SIZE) StackFrames.zeroBelow(frameTop, zeroed);
        return Limits.STACK_SIZE;
    }

    /** The target was closed while a prog array still held it. */
    public static BpfRuntimeException closedTailCallTarget(String program, int pc, String target) {
        return new BpfRuntimeException(ErrorKind.HELPER_FAILED, program, pc, 0,
                "bpf_tail_call: target program '" + target + "' was closed while still in a prog array");
    }

    /** A helper's scratch buffer is 1 to one frame's bytes. */
    public static void checkScratchSize(HelperCall call, int size) {
        if (size < 1 || size > Limits.STACK_SIZE) {
            throw call.badArgument("scratch buffer of " + size + " bytes (1 to " + Limits.STACK_SIZE + ")");
        }
    }

    /**
     * LD ABS/IND: 1, 2 or 4 big-endian bytes of the packet {@code [data, data + length)} at {@code off}
     * (truncated to a signed 32-bit int, as the kernel's bpf_skb_load_helper_* take it; a negative one
     * is past {@code buffer}'s network or mac header: {@link LegacyPacketOffsets}), or -1 when they are
     * not all inside it (the engine then ends the run with r0 = 0).
     */
    public static long loadPacket(long data, long length, PacketBuffer buffer, long off, int size) {
        int offset = (int) off;
        long at = offset >= 0 ? offset : LegacyPacketOffsets.resolve(offset, buffer, data);
        if (at + size > length) return -1;
        long a = data + at;
        switch (size) {
            case 1: return NativeMemory.getByte(a) & 0xffL;
            case 2: return Short.reverseBytes(NativeMemory.getShort(a)) & 0xffffL;
            default: return Integer.reverseBytes(NativeMemory.getInt(a)) & 0xffffffffL;
        }
    }

    /**
     * A helper moved the packet ({@link HelperCall#replaceRegion}): the run's region table with
     * {@code now} in place of {@code old}, as a new immutable list.
     */
    public static List<MemoryRegion> replaceRegion(List<MemoryRegion> regions, MemoryRegion old, MemoryRegion now) {
        List<MemoryRegion> rs = new ArrayList<>(regions);
        int i = rs.indexOf(old);
        if (i < 0) throw new IllegalStateException("region " + old + " is not in this run's table");
        rs.set(i, now);
        return List.copyOf(rs);
    }
}
