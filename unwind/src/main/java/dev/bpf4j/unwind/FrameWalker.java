package dev.bpf4j.unwind;

import java.util.ArrayList;
import java.util.List;

/**
 * Unwinds a stack from a starting register set: with the unwind rows where the code map knows the
 * code, with plain frame pointers elsewhere. Every read goes through a {@link MemoryView}, so a
 * garbage frame pointer ends the walk instead of crashing it.
 */
public final class FrameWalker {
    /** Longest trace returned (the kernel's PERF_MAX_STACK_DEPTH). */
    public static final int MAX_DEPTH = 127;

    private final CodeMap codeMap;

    public FrameWalker(CodeMap codeMap) { this.codeMap = codeMap; }

    /** Instruction pointers innermost first, starting with {@code ip} itself. */
    public List<Long> walk(long ip, long sp, long bp, MemoryView memory) {
        List<Long> ips = new ArrayList<>();
        boolean first = true;
        while (ip != 0 && ips.size() < MAX_DEPTH) {
            ips.add(ip);
            CfaRule rule = first ? ruleAt(ip) : callerRule(ip);
            first = false;
            long ra, nextSp, nextBp;
            switch (rule) {
                case RETURN_AT_SP:
                    if (!memory.contains(sp)) return ips;
                    ra = memory.readLong(sp);
                    nextSp = sp + 8;
                    nextBp = bp;
                    break;
                case RETURN_AT_SP_PLUS_8:
                    if (!memory.contains(sp) || !memory.contains(sp + 8)) return ips;
                    nextBp = memory.readLong(sp);
                    ra = memory.readLong(sp + 8);
                    nextSp = sp + 16;
                    break;
                default:
                    if (bp == 0 || Long.compareUnsigned(bp, sp) < 0) return ips;
                    if (!memory.contains(bp) || !memory.contains(bp + 8)) return ips;
                    nextBp = memory.readLong(bp);
                    ra = memory.readLong(bp + 8);
                    nextSp = bp + 16;
                    // Frames grow down: a caller's frame pointer must lie above this one.
                    if (nextBp != 0 && Long.compareUnsigned(nextBp, bp) <= 0) {
                        if (ra != 0) ips.add(ra);
                        return ips;
                    }
                    break;
            }
            ip = ra;
            sp = nextSp;
            bp = nextBp;
        }
        return ips;
    }

    /** The rule at a sampled ip: a known region's row, else the frame-pointer rule. */
    private CfaRule ruleAt(long ip) {
        return codeMap.find(ip).map(r -> r.ruleAt(ip)).filter(r -> r != null).orElse(CfaRule.FRAME_POINTER);
    }

    /**
     * A caller's ip is a return address: the call sits just before it, so look up {@code ip - 1}
     * (a call as a function's last instruction would otherwise land in the next function).
     */
    private CfaRule callerRule(long ip) {
        CfaRule r = ruleAt(ip - 1);
        return r == null ? CfaRule.FRAME_POINTER : r;
    }
}
