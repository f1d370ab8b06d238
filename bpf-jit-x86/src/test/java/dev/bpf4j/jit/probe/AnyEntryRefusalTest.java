package dev.bpf4j.jit.probe;

import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static dev.bpf4j.jit.probe.P.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Entries that cannot be displaced safely are refused with the reason, before a byte changes: a
 * loop whose head is inside the first 5 bytes, a call or jrcxz among them, a function shorter than
 * the call, a body with an indirect jump (jump-table targets unknown), an int3 already there.
 */
class AnyEntryRefusalTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "ae_spin  | jumps to 0x",
            "ae_calls | a call among the first 5 bytes",
            "ae_jrcxz | a loop/jrcxz among the first 5 bytes",
            "ae_tiny  | shorter than the 5-byte call",
            "ae_table | an indirect jump at 0x",
            "ae_bkpt  | an int3 at 0x",
            "ae_bad   | cannot decode the instruction at 0x"})
    void refusedWithTheReason(String fn, String reason) {
        for (AnyEntryLib lib : List.of(AnyEntryLib.O2, AnyEntryLib.O0)) {
            long address = lib.address(fn);
            byte[] before = ProcessText.read(address, 16);
            try (Executable x = Engines.JIT_DIRECT.load(prog("ok", mov64(0, 0), exit()), LoadOptions.defaults())) {
                assertThatThrownBy(() -> NativeProbes.attach(address, fn, ProbeProgram.of(x, List.of())))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("cannot probe '" + fn + "'").hasMessageContaining(reason);
            }
            assertThat(ProcessText.read(address, 16)).isEqualTo(before);
        }
    }
}
