package dev.bpf4j.unwind;

import dev.bpf4j.unwind.cfi.CfaDefinition;
import dev.bpf4j.unwind.cfi.CfiRow;
import dev.bpf4j.unwind.cfi.CfaInterpreter;
import dev.bpf4j.unwind.cfi.RegisterRule;

/**
 * One unwind step by a CFI row: from the frame's (ip, sp, bp) to the caller's. The CFA is the
 * caller's rsp; the return address and a saved rbp are read at their CFA offsets through the
 * {@link MemoryView}, so a bad row or a garbage register ends the walk instead of reading wild.
 */
final class CfiStep {
    private CfiStep() {}

    /**
     * What the step found. Not {@code ok}: a read left the view (the copy or the stack ends there:
     * the trace is short, not wrong) or, {@code garbage}, the CFA did not move up the stack.
     */
    record Result(boolean ok, boolean garbage, long ra, long raAt, long sp, long bp) {
        static final Result OUTSIDE = new Result(false, false, 0, 0, 0, 0);
        static final Result GARBAGE = new Result(false, true, 0, 0, 0, 0);
    }

    /** {@code row} must be {@link CfiRow#usable()} and not {@link CfiRow#outermost()}. */
    static Result step(CfiRow row, long ip, long sp, long bp, MemoryView memory) {
        CfaDefinition d = row.cfa();
        long base = d.register() == CfaInterpreter.RSP ? sp : bp;
        long cfa = switch (d.kind()) {
            case REGISTER_OFFSET -> base + d.offset();
            case DEREF -> {
                if (!memory.contains(base + d.offset())) yield 0;
                yield memory.readLong(base + d.offset());
            }
            // The PLT entry's push has run once rip's low nibble reaches the threshold.
            case PLT -> sp + d.offset() + ((ip & 15) >= d.threshold() ? 8 : 0);
            case EXPRESSION -> 0;
        };
        // The caller's frame lies above this one: a CFA at or below sp is garbage and would loop.
        if (Long.compareUnsigned(cfa, sp) <= 0) return d.kind() == CfaDefinition.Kind.DEREF && cfa == 0 ? Result.OUTSIDE : Result.GARBAGE;
        long raAt = cfa + row.returnAddress().value();
        if (!memory.contains(raAt)) return Result.OUTSIDE;
        long ra = memory.readLong(raAt);
        RegisterRule r = row.rbp();
        long nextBp;
        switch (r.kind()) {
            case OFFSET -> {
                if (!memory.contains(cfa + r.value())) return Result.OUTSIDE;
                nextBp = memory.readLong(cfa + r.value());
            }
            case VAL_OFFSET -> nextBp = cfa + r.value();
            case REGISTER -> nextBp = r.value() == CfaInterpreter.RSP ? sp : bp;
            case UNDEFINED -> nextBp = 0;
            default -> nextBp = bp;   // same value: rbp is callee-saved and this function left it alone
        }
        return new Result(true, false, ra, raAt, cfa, nextBp);
    }
}
