package dev.bpf4j.it.corpus;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.ObjectLoadOptions;
import dev.bpf4j.api.RunOptions;
import dev.bpf4j.api.RunResult;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.Engine;
import dev.bpf4j.runtime.ErrorKind;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Packet pointers kept across bpf_xdp_adjust_tail / _head (objects/src/packet_moves.c): Linux's verifier
 * refuses such programs, bpf4j runs them, and each engine judges the old pointer against the packet's
 * new bounds: out of bounds past the shrunk packet (the same error at the same pc), fine inside it.
 */
class PacketMoveTest {
    static final Path OBJECT = Path.of("src/test/resources/objects/packet_moves.o");

    static List<Engine> engines() { return CorpusDifferentialTest.engines(); }

    @ParameterizedTest(name = "{0}")
    @MethodSource("engines")
    void oldPointerPastTheShrunkPacketIsOutOfBounds(Engine engine) {
        try (BpfObject obj = BpfObject.open(OBJECT).load(ObjectLoadOptions.engine(engine))) {
            assertThatThrownBy(() -> obj.program("stale_after_shrink").run(RunOptions.packet(new byte[100])))
                    .isInstanceOfSatisfying(BpfRuntimeException.class, e -> {
                        assertThat(e.kind()).isEqualTo(ErrorKind.OUT_OF_BOUNDS);
                        assertThat(e.pc()).isEqualTo(13);
                    })
                    .hasMessageContaining("packet_moves.c");
            // a packet too short for the program's bounds check never reaches the helper
            assertThat(obj.program("stale_after_shrink").run(RunOptions.packet(new byte[40])).retval()).isEqualTo(1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("engines")
    void oldPointerInsideTheMovedPacketStillWrites(Engine engine) {
        try (BpfObject obj = BpfObject.open(OBJECT).load(ObjectLoadOptions.engine(engine))) {
            RunResult r = obj.program("old_pointer_inside").run(RunOptions.packet(new byte[64]));
            assertThat(r.retval()).isEqualTo(3);
            assertThat(r.dataOut()).hasSize(56);
            assertThat(r.dataOut()[0]).isEqualTo((byte) 0x5a);
        }
    }
}
