package dev.bpf4j.it.corpus;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.ObjectLoadOptions;
import dev.bpf4j.api.RunOptions;
import dev.bpf4j.api.RunResult;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.engine.Engine;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Packet pointers kept across a helper that moves the packet (objects/src/packet_moves.c): the verifier
 * forgets every packet pointer after such a call (Linux's clear_all_pkt_pointers), so a program that
 * uses one it loaded before, in a register, spilled or in a caller's frame, is refused at load at the
 * access, as Linux refuses it (KernelCorpusTest checks Linux's verdicts); one that loads data/data_end again
 * runs, on both engines.
 */
class PacketMoveTest {
    static final Path OBJECT = Path.of("src/test/resources/objects/packet_moves.o");

    static List<Engine> engines() { return CorpusDifferentialTest.engines(); }

    @ParameterizedTest(name = "{0} refused at pc {1}")
    @CsvSource({"stale_after_shrink, 13, R6", "old_pointer_inside, 12, R6", "stale_spilled, 15, R1", "stale_across_subprog, 12, R6"})
    void stalePacketPointerIsRefusedAtTheAccess(String program, int pc, String reg) {
        BpfObjectSpec spec = alone(program);
        BpfLoadException e = catchThrowableOfType(() -> BpfObject.open(spec).load("interp").close(), BpfLoadException.class);
        assertThat(e).as("bpf4j refuses %s", program).isNotNull();
        assertThat(e.getMessage()).contains(program + " pc " + pc + " (./src/packet_moves.c:").contains(reg + " !read_ok (a packet pointer from before the call at pc ")
                .contains("load data and data_end from the ctx again");
    }

    /** The object with only {@code program}: the others are refused. */
    static BpfObjectSpec alone(String program) {
        BpfObjectSpec spec = BpfObjectSpec.read(OBJECT);
        return ObjectVerifierAgreementTest.only(spec, spec.program(program));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("engines")
    void rederivedPointersRun(Engine engine) {
        try (BpfObject obj = BpfObject.open(alone("rederived")).load(ObjectLoadOptions.engine(engine))) {
            byte[] in = new byte[64];
            in[1] = 0x77;
            RunResult r = obj.program("rederived").run(RunOptions.packet(in));
            assertThat(r.retval()).isEqualTo(0x77);
            assertThat(r.dataOut()).hasSize(80);
            assertThat(r.dataOut()[0]).isEqualTo((byte) 0x5a);
        }
    }
}
