package dev.bpf4j.btf;

import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.object.Fixtures;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class BtfEncoderTest {
    @Test void encodedBtfParsesBackToTheSameTypes() {
        int checked = 0;
        for (String name : Fixtures.NAMES) {
            Btf btf = BpfObjectSpec.read(Fixtures.path(name)).btf();
            if (btf == null) continue;
            Btf back = Btf.parse(BtfEncoder.encode(btf));
            assertThat(back.types()).as(name).isEqualTo(btf.types());
            checked++;
        }
        assertThat(checked).isGreaterThan(5);
    }
}
