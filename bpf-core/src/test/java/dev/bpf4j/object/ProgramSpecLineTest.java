package dev.bpf4j.object;

import dev.bpf4j.btf.LineInfo;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.program.Program;
import org.junit.jupiter.api.Test;

import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ProgramSpecLineTest {
    static ProgramSpec spec(List<LineInfo> lines) {
        List<Insn> code = Collections.nCopies(6, new Insn(Opcodes.ALU64 | Opcodes.MOV, 0, 0, 0, 0));
        return new ProgramSpec("prog", "xdp", ProgramType.XDP, AttachType.NONE, "", false, new Program("prog", code), List.of(),
                List.of(new FunctionSpec("prog", "xdp", 0, 6)), List.of(), lines, List.of());
    }

    @Test void lineZeroEntriesAreNotPrinted() {
        ProgramSpec p = spec(List.of(new LineInfo(0, "./src/a.c", "int x = 1;", 3, 5), new LineInfo(2, "./src/a.c", "", 0, 0),
                new LineInfo(4, "./src/a.c", "return x;", 4, 2)));
        assertThat(p.describe(1)).isEqualTo("prog pc 1 (./src/a.c:3:5: int x = 1;)");
        assertThat(p.describe(2)).isEqualTo("prog pc 2");
        assertThat(p.describe(3)).isEqualTo("prog pc 3").doesNotContain(":0:0");
        assertThat(p.describe(5)).isEqualTo("prog pc 5 (./src/a.c:4:2: return x;)");
        assertThat(p.lineAt(3)).isEmpty();
    }
}
