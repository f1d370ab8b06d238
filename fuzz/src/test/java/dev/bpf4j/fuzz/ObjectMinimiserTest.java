package dev.bpf4j.fuzz;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ObjectMinimiserTest {
    /** Of twenty changed bytes only byte 37 matters: the minimised object is the original with that byte changed. */
    @Test void keepsOnlyTheChangedBytesThatMatter() {
        byte[] original = new byte[100];
        byte[] mutant = original.clone();
        for (int i = 30; i < 50; i++) mutant[i] = (byte) (i + 1);
        byte[] small = new ObjectMinimiser(b -> b[37] == 38, 200).minimise(original, mutant);
        byte[] expected = original.clone();
        expected[37] = 38;
        assertThat(small).isEqualTo(expected);
    }

    @Test void aTruncatedMutantKeepsItsLength() {
        byte[] original = new byte[64];
        byte[] mutant = new byte[10];
        mutant[3] = 1;
        assertThat(new ObjectMinimiser(b -> b.length == 10, 50).minimise(original, mutant)).isEqualTo(new byte[10]);
    }
}
