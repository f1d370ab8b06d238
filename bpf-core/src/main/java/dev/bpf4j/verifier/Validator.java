package dev.bpf4j.verifier;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.LoadOptions;

import java.util.List;

/**
 * The mandatory load-time validator (DESIGN.md, safety pillar 1). It runs three passes, each in its
 * own class, and stops at the first rejection with a kernel-like "pc: reason":
 * <ol>
 *   <li>{@link SlotChecker}: opcodes, reserved fields, register numbers, r10 read-only, lddw
 *       pairing, helper ids;</li>
 *   <li>{@link ControlFlow}: subprogram boundaries, jump and call targets, missing exit;</li>
 *   <li>{@link Verifier}: the kernel-style verifier, every path through an abstract machine of typed
 *       registers and stack slots (docs/verifier.md). As in Linux, only instructions on an explored
 *       path are checked: an r10-relative access outside the frame on a path no run takes is
 *       accepted (both engines check such an access at run time, so it could never touch memory).</li>
 * </ol>
 */
public final class Validator {
    private Validator() {}

    /** The kernel's BPF_COMPLEXITY_LIMIT_INSNS: the most slots a program may have. */
    public static final int MAX_SLOTS = 1_000_000;

    /** Throws {@link VerifierException} naming the pc and the reason when {@code program} is invalid. */
    public static void validate(Program program, LoadOptions options) {
        analyze(program, options);
    }

    /** Validates {@code program} and returns its subprogram boundaries. */
    public static ValidatedProgram analyze(Program program, LoadOptions options) {
        return analyze(program, options, ValidatorFeatures.from(options));
    }

    /** As {@link #analyze(Program, LoadOptions)}, with instruction families beyond the defaults switched on. */
    public static ValidatedProgram analyze(Program program, LoadOptions options, ValidatorFeatures features) {
        Reject reject = new Reject(program.name());
        if (program.length() == 0) {
            throw reject.at(0, "empty program: a program needs at least one instruction (exit)");
        }
        if (program.length() > MAX_SLOTS) {
            throw reject.at(MAX_SLOTS, "program too large: " + program.length() + " slots, the limit is " + MAX_SLOTS);
        }
        Insn[] insns = program.toArray();
        InsnForm[] forms = new SlotChecker(reject, options.helpers(), features).check(insns);
        ControlFlow cfg = new ControlFlow(reject, insns, forms);
        List<Subprogram> subprograms = cfg.analyze();
        VerifierPolicy policy = VerifierPolicy.from(options);
        if (policy.ctxRules() != null) cfg.checkReachable(); // a kernel program type's load
        // Loops are followed round by round, as Linux does, so a counted loop gets a budget bound; only
        // where that passes the complexity limit are long loops widened (docs/verifier.md, "Loops").
        Verifier verifier = new Verifier(reject, insns, forms, options.helpers(), policy, Verifier.EXACT);
        VerifierStats stats;
        try {
            stats = verifier.verify(policy);
        } catch (VerifierException e) {
            if (!verifier.refusedForLongLoop()) throw e;
            verifier = new Verifier(reject, insns, forms, options.helpers(), policy, StatePruning.WIDEN_AFTER);
            stats = verifier.verify(policy);
        }
        if (policy.kernelCallWalk()) {
            new CallStackCheck(reject, insns, forms, subprograms, verifier.stackDepths(), policy.privateStacks(), options.helpers()).check();
        }
        return new ValidatedProgram(program, subprograms, stats, verifier.aux());
    }
}
