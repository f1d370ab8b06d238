package dev.bpf4j.unwind;

import dev.bpf4j.unwind.cfi.CfaDefinition;
import dev.bpf4j.unwind.cfi.CfaInterpreter;
import dev.bpf4j.unwind.cfi.CfiRow;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;

/**
 * Unwinds a stack from a starting register set (ip, sp, bp) over a {@link MemoryView}. Each step
 * uses, in order: the unwind rows of a {@link CodeRegion} where the code map knows the code
 * (exact at every instruction of JIT code and trampolines); the {@code .eh_frame} row of the
 * native module holding the pc ({@link CfiLookup}: libc, {@code -fomit-frame-pointer} code); the
 * frame pointer otherwise. The two frames a probe trampoline builds (ftrace-style, for
 * frame-pointer walkers) are followed by their frame pointers. A trace is {@linkplain StackTrace#reliable() reliable} when no step fell
 * back to the frame pointer. Every read goes through the view, so a garbage register ends the
 * walk. The walk stops at {@link #MAX_DEPTH} ips, at a frame whose CFI says the return address is
 * undefined (the thread's first frame), on a null or non-increasing frame pointer or CFA, and on a
 * return address that is not code.
 */
public final class Unwinder {
    /** Longest trace (the kernel's PERF_MAX_STACK_DEPTH). */
    public static final int MAX_DEPTH = 127;
    private static final Unwinder GLOBAL = new Unwinder(ProcessCode.global());

    private final CodeMap regions;
    private final LongPredicate isCode;
    private final CfiLookup cfi;

    /**
     * @param regions code with unwind rows
     * @param isCode  whether a return address points at code; the walk ends before one that does not
     * @param cfi     the {@code .eh_frame} rows of native code
     */
    public Unwinder(CodeMap regions, LongPredicate isCode, CfiLookup cfi) {
        this.regions = regions;
        this.isCode = isCode;
        this.cfi = cfi;
    }

    /** Without CFI: rows and frame pointers only. */
    public Unwinder(CodeMap regions, LongPredicate isCode) { this(regions, isCode, CfiLookup.NONE); }

    /** Over this process: the JIT's regions, the modules' CFI, return addresses checked against the executable mappings. */
    public Unwinder(ProcessCode code) { this(code.jit(), code::isCode, code::cfiRow); }

    /** This unwinder with its code and CFI lookups answered through {@code memo} (the code map is shared). */
    public Unwinder remembering(RememberedLookups memo) { return new Unwinder(regions, memo.isCode(isCode), memo.cfi(cfi)); }

    /** Over {@link ProcessCode#global()}. */
    public static Unwinder global() { return GLOBAL; }

    /**
     * Unwinds the calling thread's live stack, reading only {@code [sp, top of stack)}. A start
     * with {@code sp} off this thread's stack gives a trace of {@code ip} alone.
     */
    public StackTrace unwindCurrentThread(long ip, long sp, long bp) {
        return ThreadStack.current().viewFrom(sp)
                .map(view -> unwind(ip, sp, bp, view))
                .orElseGet(() -> new StackTrace(ip == 0 ? List.of() : List.of(ip), false));
    }

    public StackTrace unwind(long ip, long sp, long bp, MemoryView memory) {
        if (ip == 0) return StackTrace.EMPTY;
        List<Long> ips = new ArrayList<>();
        boolean reliable = true;
        // A return address is looked up at ip - 1: the call before it may be its function's last instruction.
        long lookup = ip;
        boolean afterRows = false, trampolineSp = false;
        while (true) {
            ips.add(ip);
            if (ips.size() >= MAX_DEPTH) break;
            final long at = lookup;
            CfaRule rule = regions.find(at).map(r -> r.ruleAt(at)).orElse(null);
            long ra, raAt, nextSp, nextBp;
            boolean last = false;
            CfiRow row = rule == null ? cfi.rowAt(at).filter(CfiRow::usable).orElse(null) : null;
            boolean spFromTrampoline = trampolineSp;
            trampolineSp = false;
            if (row != null && afterRows && at != ip && isEntryState(row)) {
                // A return address in a function's entry state, reached from bpf4j code: the call was
                // patched over the entry (a probe). The trampoline built this frame and its parent's
                // for frame-pointer walkers, as ftrace does: this frame's pointer is exact, but the sp
                // its rows give is the trampoline's, not the function's.
                row = null;
                rule = CfaRule.FRAME_POINTER;
                trampolineSp = true;
            } else if (row != null && spFromTrampoline && row.cfa().register() != CfaInterpreter.RBP) {
                row = null;   // the parent of a patched function: only a CFA from rbp can be trusted here
            }
            afterRows = rule != null;
            if (row != null) {
                if (row.outermost()) break;   // the thread's first frame: a complete trace
                CfiStep.Result r = CfiStep.step(row, at, sp, bp, memory);
                if (!r.ok()) return new StackTrace(ips, reliable && !r.garbage());
                ra = r.ra();
                raAt = r.raAt();
                nextSp = r.sp();
                nextBp = r.bp();
            } else {
                if (rule == null) {
                    rule = CfaRule.FRAME_POINTER;
                    reliable = false;
                }
                switch (rule) {
                    case RETURN_AT_SP:
                        if (!memory.contains(sp)) return new StackTrace(ips, reliable);
                        ra = memory.readLong(sp);
                        raAt = sp;
                        nextSp = sp + 8;
                        nextBp = bp;
                        break;
                    case RETURN_AT_SP_PLUS_8:
                        if (!memory.contains(sp) || !memory.contains(sp + 8)) return new StackTrace(ips, reliable);
                        nextBp = memory.readLong(sp);
                        ra = memory.readLong(sp + 8);
                        raAt = sp + 8;
                        nextSp = sp + 16;
                        break;
                    default:
                        if (bp == 0 || Long.compareUnsigned(bp, sp) < 0) return new StackTrace(ips, reliable);
                        if (!memory.contains(bp) || !memory.contains(bp + 8)) return new StackTrace(ips, reliable);
                        nextBp = memory.readLong(bp);
                        ra = memory.readLong(bp + 8);
                        raAt = bp + 8;
                        nextSp = bp + 16;
                        // Frames grow down: a caller's frame lies above this one. Keep the return address
                        // read from this valid frame, then stop.
                        last = nextBp != 0 && Long.compareUnsigned(nextBp, bp) <= 0;
                        break;
                }
            }
            // A return probe's trampoline in the slot: the real return address is on the thread's shadow stack.
            long real = regions.originalReturn(ra, raAt);
            if (real == 0) {
                // Another thread's slot (a sample): its shadow stack now, a guess; without one the
                // walk goes on by the trampoline's frame pointer. Either way not exact.
                reliable = false;
                real = regions.guessedReturn(ra, raAt);
            }
            if (real != 0) ra = real;
            if (ra == 0 || !isCode.test(ra)) break;
            ip = ra;
            lookup = ra - 1;
            sp = nextSp;
            bp = nextBp;
            if (last) {
                ips.add(ip);
                break;
            }
        }
        return new StackTrace(ips, reliable);
    }

    /**
     * The step {@link #unwind} takes at lookup address {@code at} whatever the walk did before it, so
     * that another walker can repeat it: {@code first} for a trace's first ip (looked up at the ip
     * itself), else for a return address (looked up at ra - 1). The code map's rows are context-free
     * (rsp rules become the equivalent CFA rows); a CFI row is too, except a return address in a
     * function's entry state, which a walk coming from bpf4j code takes by its frame pointer (a
     * patched entry): left out, as are rows needing more than (rsp, rbp) offsets.
     */
    public java.util.Optional<PlainStep> plainStep(long at, boolean first) {
        CfaRule rule = regions.find(at).map(r -> r.ruleAt(at)).orElse(null);
        if (rule != null) {
            return java.util.Optional.of(switch (rule) {
                case RETURN_AT_SP -> new PlainStep(PlainStep.Kind.CFI, false, 8, -8, PlainStep.BpRule.SAME, 0);
                case RETURN_AT_SP_PLUS_8 -> new PlainStep(PlainStep.Kind.CFI, false, 16, -8, PlainStep.BpRule.AT_CFA_OFFSET, -16);
                case FRAME_POINTER -> PlainStep.FRAME_POINTER;
            });
        }
        CfiRow row = cfi.rowAt(at).filter(CfiRow::usable).orElse(null);
        if (row == null) return java.util.Optional.of(PlainStep.FRAME_POINTER);
        if (row.outermost()) return java.util.Optional.of(PlainStep.OUTERMOST);
        if (row.cfa().kind() != CfaDefinition.Kind.REGISTER_OFFSET || (!first && isEntryState(row))) return java.util.Optional.empty();
        var r = row.rbp();
        PlainStep.BpRule bp = switch (r.kind()) {
            case OFFSET -> PlainStep.BpRule.AT_CFA_OFFSET;
            case VAL_OFFSET -> PlainStep.BpRule.CFA_OFFSET;
            case UNDEFINED -> PlainStep.BpRule.UNDEFINED;
            case REGISTER -> r.value() == CfaInterpreter.RSP ? PlainStep.BpRule.SP : PlainStep.BpRule.SAME;
            default -> PlainStep.BpRule.SAME;
        };
        long bpOffset = bp == PlainStep.BpRule.AT_CFA_OFFSET || bp == PlainStep.BpRule.CFA_OFFSET ? r.value() : 0;
        return java.util.Optional.of(new PlainStep(PlainStep.Kind.CFI, row.cfa().register() == CfaInterpreter.RBP,
                row.cfa().offset(), row.returnAddress().value(), bp, bpOffset));
    }

    /**
     * True when {@link #unwind} takes {@code ra}, read from a return-address slot, as it is: code, and
     * not a return probe's trampoline (whose real address depends on the thread).
     */
    public boolean plainReturn(long ra) {
        return ra != 0 && isCode.test(ra) && !regions.isReturnTrampoline(ra);
    }

    /**
     * CFA = rsp + 8 with nothing pushed: a function's first instruction. An ordinary call never
     * returns there (the ABI keeps rsp 16-byte aligned at a call), only one written over the entry.
     */
    private static boolean isEntryState(CfiRow row) {
        return row.cfa().kind() == CfaDefinition.Kind.REGISTER_OFFSET && row.cfa().register() == CfaInterpreter.RSP
                && row.cfa().offset() == 8;
    }
}
