package dev.bpf4j.jvm;

import dev.bpf4j.runtime.Executable;

/**
 * Reads, for it-tests' {@code BudgetBoundTest}, the budget bound a JVM-engine executable's code relies
 * on: in the engine's own package, as {@code JvmExecutable} is not public.
 */
public final class JvmBudgetBound {
    private JvmBudgetBound() {}

    /** The verifier's bound the code counts nothing under, or -1 where it counts every event. */
    public static long of(Executable x) { return ((JvmExecutable) x).budgetBound(); }
}
