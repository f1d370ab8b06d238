package dev.bpf4j.fuzz;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

class ObjectMutatorTest {
    static final Path OBJECTS = Path.of("../it-tests/src/test/resources/objects");

    static ObjectMutator corpus() { return new ObjectMutator(ObjectMutationCampaignTest.objects(OBJECTS)); }

    @Test void aMutantDependsOnlyOnItsSeedAndDiffersFromItsObject() {
        ObjectMutator m = corpus();
        assertThat(m.corpusSize()).isGreaterThan(40);
        for (long seed = 0; seed < 200; seed++) {
            ObjectMutator.Mutant a = m.mutate(seed), b = m.mutate(seed);
            assertThat(a.bytes()).isEqualTo(b.bytes());
            assertThat(a.mutations()).isEqualTo(b.mutations());
            assertThat(a.origin()).contains("seed " + seed).contains(a.seedObject());
        }
        long changed = java.util.stream.LongStream.range(0, 500)
                .filter(s -> { ObjectMutator.Mutant x = m.mutate(s); return !Arrays.equals(x.bytes(), m.seedBytes(x.seedObject())); }).count();
        assertThat(changed).as("mutants that differ from their object").isGreaterThan(450);
    }

    /** Every structure the mutator knows is reached: headers, symbols, relocations, BTF, .BTF.ext, code, map definitions. */
    @Test void everyKindOfMutationOccurs() {
        ObjectMutator m = corpus();
        Set<String> kinds = new TreeSet<>();
        for (long seed = 0; seed < 3000; seed++) {
            for (String part : m.mutate(seed).mutations().split("; ")) kinds.add(part.split("[ @=]")[0]);
        }
        assertThat(kinds).containsAll(List.of("section", "symbol", "relocation", "btf", "btf.ext", "insn", "map-def", "flip",
                "truncate", "elf-header", "btf-header", "data", "strings", "btf_strings"));
    }
}
