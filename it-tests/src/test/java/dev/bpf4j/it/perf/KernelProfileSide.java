package dev.bpf4j.it.perf;

import dev.bpf4j.cli.profile.KernelProfile;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Skips a kernel-oracle test where {@link KernelProfile} cannot be used (class path, bpf() refused). */
final class KernelProfileSide {
    private KernelProfileSide() {}

    /** Skips the calling test where bpf4j-kernel is off the class path or bpf() is refused, saying which. */
    static void assumeUsable() {
        assumeTrue(KernelProfile.onClassPath(), "bpf4j-kernel is not on this surefire execution's class path (see it-tests/pom.xml)");
        String refused = KernelProfile.unavailableReason();
        assumeTrue(refused == null, () -> "bpf() is not permitted here: " + refused);
    }
}
