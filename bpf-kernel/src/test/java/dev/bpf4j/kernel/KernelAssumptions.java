package dev.bpf4j.kernel;

import org.junit.jupiter.api.Assumptions;

/** Skips a test, with the reason, where this process may not use bpf(2). */
final class KernelAssumptions {
    private KernelAssumptions() {}

    static void assumeBpf() {
        KernelBpf.Availability a = KernelBpf.availability();
        Assumptions.assumeTrue(a.available(), () -> "skipped: the kernel oracle is unavailable: " + a.reason());
    }
}
