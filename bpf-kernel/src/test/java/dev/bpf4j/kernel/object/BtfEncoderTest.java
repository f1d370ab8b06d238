package dev.bpf4j.kernel.object;

import dev.bpf4j.btf.Btf;
import dev.bpf4j.kernel.BpfSyscall;
import dev.bpf4j.kernel.KernelBpf;
import dev.bpf4j.object.BpfObjectSpec;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The encoder writes back exactly the types it was given, and the kernel accepts what it writes. */
class BtfEncoderTest {
    static final Path CORPUS = Path.of("../it-tests/src/test/resources/objects/corpus");

    static List<Path> objects() throws IOException {
        try (Stream<Path> s = Files.list(CORPUS)) {
            return s.filter(p -> p.toString().endsWith(".o")).sorted().toList();
        }
    }

    @Test void everyCorpusObjectsBtfRoundTripsAndLoads() throws IOException {
        List<Path> objects = objects();
        assertThat(objects).hasSizeGreaterThanOrEqualTo(25);
        for (Path o : objects) {
            Btf btf = BpfObjectSpec.read(o).btf();
            assertThat(btf).as(o.toString()).isNotNull();
            BtfEncoder enc = new BtfEncoder(btf);
            int lineOff = enc.stringOffset("a source line, added for line_info");
            byte[] bytes = enc.bytes();
            Btf back = Btf.parse(bytes);
            assertThat(back.types()).as(o.toString()).isEqualTo(btf.types());
            assertThat(back.string(lineOff)).isEqualTo("a source line, added for line_info");
            if (KernelBpf.available()) BpfSyscall.close(BpfSyscall.btfLoad(bytes));
        }
    }
}
