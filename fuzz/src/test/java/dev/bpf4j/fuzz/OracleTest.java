package dev.bpf4j.fuzz;

import dev.bpf4j.runtime.ErrorKind;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class OracleTest {
    static final byte[] MEM = {1, 2, 3};

    static EngineOutcome twice(String engine, Observation o) { return new EngineOutcome(engine, o, o); }

    static List<String> kinds(EngineOutcome... outcomes) {
        return Oracle.compare(List.of(outcomes)).stream().map(Difference::kind).toList();
    }

    @Test void identicalOutcomesAgree() {
        Observation o = Observation.returned(7, MEM);
        assertThat(kinds(twice("interp", o), twice("jit", o))).isEmpty();
    }

    @Test void everyObservableIsCompared() {
        Observation ok = Observation.returned(7, MEM);
        assertThat(kinds(twice("interp", ok), twice("jit", Observation.returned(8, MEM)))).containsExactly("r0");
        assertThat(kinds(twice("interp", ok), twice("jit", Observation.returned(7, new byte[] {1, 2, 4})))).containsExactly("memory");
        Observation oob = Observation.failed(ErrorKind.OUT_OF_BOUNDS, 3, "mem+0x3", MEM, "x");
        assertThat(kinds(twice("interp", ok), twice("jit", oob))).containsExactly("verdict");
        assertThat(kinds(twice("interp", oob), twice("jit", Observation.failed(ErrorKind.OUT_OF_BOUNDS, 4, "mem+0x3", MEM, "x"))))
                .as("pc").containsExactly("error");
        assertThat(kinds(twice("interp", oob), twice("jit", Observation.failed(ErrorKind.OUT_OF_BOUNDS, 3, "mem+0x4", MEM, "x"))))
                .as("address").containsExactly("error");
        assertThat(kinds(twice("interp", oob), twice("jit", Observation.failed(ErrorKind.MISALIGNED_ATOMIC, 3, "mem+0x3", MEM, "x"))))
                .as("kind").containsExactly("error");
    }

    @Test void aResultThatMovesBetweenRunsIsUnstable() {
        Observation ok = Observation.returned(7, MEM);
        EngineOutcome moving = new EngineOutcome("jit", ok, Observation.returned(0x7f00_0000_1000L, MEM));
        assertThat(kinds(twice("interp", ok), moving)).containsExactly("unstable-jit");
    }

    @Test void rejectedByEveryEngineIsNoDifferenceButByOneIs() {
        Observation rejected = Observation.rejected("0: unknown opcode 0xff");
        assertThat(kinds(twice("interp", rejected), new EngineOutcome("jit", rejected, null))).isEmpty();
        assertThat(kinds(twice("interp", Observation.returned(0, MEM)), new EngineOutcome("jit", rejected, null))).containsExactly("verdict");
        assertThat(kinds(twice("interp", Observation.returned(0, MEM)), new EngineOutcome("jit", Observation.crashed(new IllegalStateException("x")), null)))
                .containsExactly("crash-jit");
    }

    @Test void errorAddressesAreNamedRelativeToTheBlock() {
        long base = 0x7f00_0000_0000L;
        assertThat(Addresses.describe(base + 0x10, base, 8)).isEqualTo("mem+0x10");
        assertThat(Addresses.describe(base - 8, base, 8)).isEqualTo("mem-0x8");
        assertThat(Addresses.describe(8, base, 8)).isEqualTo("0x8");
        assertThat(Addresses.describe(base + 0x100000, base, 8)).isEqualTo("native");
    }
}
