package dev.bpf4j.jit.probe;

import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;

import static dev.bpf4j.isa.Opcodes.DW;
import static dev.bpf4j.jit.probe.P.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Bad attaches are refused with a clear error and change nothing; a faulting program never disturbs the traced function. */
class ProbeErrorsTest {
    private static dev.bpf4j.program.Program ok() { return prog("ok", mov64(0, 0), exit()); }

    /** plain (no nop) and singles (five 1-byte nops) used to be refused: both displace their first instructions now. */
    @Test
    void functionsWithoutTheFentryNopAreProbedByDisplacingTheirEntry() {
        for (String fn : List.of("plain", "singles")) {
            long address = TestLib.address(fn);
            byte[] before = ProcessText.read(address, 8);
            try (Executable x = Engines.JIT_DIRECT.load(ok(), LoadOptions.defaults());
                 ProbeLink link = NativeProbes.attach(address, fn, ProbeProgram.of(x, List.of()))) {
                assertThat(ProcessText.read(address, 1)[0]).as("jmp rel32 to the trampoline").isEqualTo((byte) 0xe9);
                assertThat(TestLib.call1(address, 40)).isEqualTo(fn.equals("plain") ? 41 : 42);
                assertThat(link.hits()).isEqualTo(1);
            }
            assertThat(ProcessText.read(address, 8)).isEqualTo(before);
        }
    }

    @Test
    void badAddressesAreRefused() {
        long heap = NativeMemory.allocate(64);
        try (Executable x = Engines.JIT_DIRECT.load(ok(), LoadOptions.defaults())) {
            ProbeProgram p = ProbeProgram.of(x, List.of());
            assertThatThrownBy(() -> NativeProbes.attach(0, "null", p)).hasMessageContaining("address 0");
            assertThatThrownBy(() -> NativeProbes.attach(heap, "heap", p)).hasMessageContaining("not in an executable mapping");
            assertThatThrownBy(() -> NativeProbes.attach(0x1000, "low", p)).hasMessageContaining("not in an executable mapping");
            assertThatThrownBy(() -> NativeProbes.attach(TestLib.path(), "no_such_fn", p)).hasMessageContaining("has no symbol 'no_such_fn'");
        } finally {
            NativeMemory.free(heap);
        }
    }

    @Test
    void sameProgramTwiceOnOneFunctionIsRefused() {
        long leaf = TestLib.address("leaf");
        try (Executable x = Engines.JIT_DIRECT.load(ok(), LoadOptions.defaults());
             ProbeLink first = NativeProbes.attach(leaf, "leaf", ProbeProgram.of(x, List.of()))) {
            assertThatThrownBy(() -> NativeProbes.attach(leaf, "leaf", ProbeProgram.of(x, List.of())))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("'ok' is already attached to 'leaf'");
            assertThat(TestLib.call2(leaf, 1, 1)).isEqualTo(4);
            assertThat(first.hits()).isEqualTo(1);
        }
        assertThat(ProcessText.read(leaf, 5)).isEqualTo(PatchSite.NOP5);
    }

    @Test
    void attachedJitProgramCannotBeClosed() {
        long leaf = TestLib.address("leaf");
        Executable x = Engines.JIT_DIRECT.load(ok(), LoadOptions.defaults());
        ProbeLink link = NativeProbes.attach(leaf, "leaf", ProbeProgram.of(x, List.of()));
        assertThatThrownBy(x::close).hasMessageContaining("detach them first");
        link.close();
        x.close();
        assertThat(TestLib.call2(leaf, 1, 2)).isEqualTo(5);
    }

    /** Reads 8 bytes past the end of pt_regs (r1 + 168): out of bounds in every engine. */
    @ParameterizedTest
    @EnumSource(Engines.class)
    void faultingProgramIsCountedAndTheFunctionCompletes(Engines engine) {
        long mid = TestLib.address("mid"), leaf = TestLib.address("leaf");
        long block = NativeMemory.allocate(8);
        NativeMemory.putLong(block, 0);
        List<MemoryRegion> regions = List.of(new MemoryRegion("counter", block, 8, true));
        dev.bpf4j.program.Program bad = prog("bad", ldx(DW, 2, 1, PtRegsLayout.SIZE), mov64(0, 0), exit());
        dev.bpf4j.program.Program after = prog("after", lddw(3, block), mov64(4, 1), atomicAdd(3, 4, 0), mov64(0, 0), exit());
        try (Executable b = engine.load(bad, LoadOptions.defaults());
             Executable a = engine.load(after, LoadOptions.defaults());
             ProbeLink lb = NativeProbes.attach(leaf, "leaf", engine.probe(b, regions));
             ProbeLink la = NativeProbes.attach(leaf, "leaf", engine.probe(a, regions))) {
            assertThat(TestLib.call1(mid, 4)).isEqualTo(20);
            assertThat(TestLib.call1(mid, 4)).isEqualTo(20);
            assertThat(lb.hits()).isEqualTo(2);
            assertThat(lb.errors()).isEqualTo(2);
            assertThat(la.errors()).isZero();
            assertThat(NativeMemory.getLong(block)).isEqualTo(2); // the next program still ran
            assertThat(lb.lastError()).get().isInstanceOfSatisfying(BpfRuntimeException.class, e -> {
                assertThat(e.kind()).isEqualTo(ErrorKind.OUT_OF_BOUNDS);
                assertThat(e.getMessage()).contains("bad").contains("8-byte read");
            });
            assertThat(la.lastError()).isEmpty();
        } finally {
            NativeMemory.free(block);
        }
    }
}
