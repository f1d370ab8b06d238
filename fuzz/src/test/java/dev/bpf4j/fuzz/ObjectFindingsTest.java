package dev.bpf4j.fuzz;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Findings of the object mutation campaign that are bugs of bpf4j not fixed yet. Each test holds its
 * minimised object (under {@code object-findings/}) to what must hold once the bug is fixed.
 */
class ObjectFindingsTest {
    private static ObjectReport run(String name) throws Exception {
        Path p = Path.of(ObjectFindingsTest.class.getResource("/object-findings/" + name).toURI());
        return ObjectDifferential.interpAndJit().run(Files.readAllBytes(p), name);
    }

    /**
     * globals.o with one load replaced by {@code r2 += 0} (mutate-objects seed 20261207001): {@code r4 *= r1}
     * then multiplies by r1, the address of {@code .data.custom}, and the product goes to {@code .bss}, so the
     * map differs between any two loads. MapRelocator turns a BPF_PSEUDO_MAP_VALUE {@code lddw} into its native
     * address before the verifier runs, which then sees a scalar constant, not PTR_TO_MAP_VALUE; Linux rejects
     * the multiplication ("R4 pointer arithmetic with *= operator prohibited"). Enable when the verifier types
     * global-data addresses as map value pointers: the load must then be refused on both engines.
     */
    @Disabled("verifier: a global-data address is a scalar to the verifier; see the comment")
    @Test void aGlobalDataAddressInArithmeticIsRefused() throws Exception {
        ObjectReport r = run("global-address-in-arithmetic.o");
        assertThat(r.agree()).as(r.describe()).isTrue();
        assertThat(r.loaded()).as(r.describe()).isFalse();
        assertThat(r.outcomes().get(0).lines().get(0)).contains("use_globals").contains("pointer arithmetic");
    }
}
