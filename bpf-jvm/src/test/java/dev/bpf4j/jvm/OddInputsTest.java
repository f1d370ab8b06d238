package dev.bpf4j.jvm;

import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.interp.InterpreterEngine;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.asm.ProgramBuilder;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapFlags;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.maps.ProgArrayMap;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.bpf4j.isa.Reg.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What an outsider would try: other threads, closed programs, foreign tail-call targets, bad loads. */
class OddInputsTest {
    private final JvmEngine jvm = new JvmEngine();

    @Test void manyThreadsRunOneExecutableWithAtomicsAndOwnStacks() throws Exception {
        long cell = NativeMemory.allocate(8);
        NativeMemory.putLong(cell, 0);
        // each run: its own stack slot round trip, then an atomic add of 1 to the shared cell, 1000 times
        Program p = new ProgramBuilder().mov64(R6, 0)
                .label("loop")
                .stxdw(R10, -8, R6).ldxdw(R2, R10, -8).add64(R2, 1).mov64(R6, R2)
                .mov64(R3, 1).atomic(Opcodes.DW, Opcodes.ADD, R1, 0, R3)
                .jlt(R6, 1000, "loop")
                .mov64(R0, R6).exit().build("threads");
        try (Executable e = Bpf.load(p, jvm, LoadOptions.defaults())) {
            RunContext ctx = RunContext.builder().arg(1, cell).region(new MemoryRegion("cell", cell, 8, true)).build();
            List<Thread> ts = new ArrayList<>();
            List<Long> results = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int t = 0; t < 4; t++) {
                Thread th = new Thread(() -> { for (int i = 0; i < 50; i++) results.add(e.run(ctx)); });
                ts.add(th);
                th.start();
            }
            for (Thread th : ts) th.join();
            assertThat(results).hasSize(200).containsOnly(1000L);
            assertThat(NativeMemory.getLong(cell)).isEqualTo(200L * 1000);
        } finally {
            NativeMemory.free(cell);
        }
    }

    @Test void aClosedProgramRefusesToRun() {
        Executable e = jvm.load(new Program("c", List.of(new Insn(Opcodes.ALU64 | Opcodes.MOV | Opcodes.K, 0, 0, 0, 3),
                new Insn(Opcodes.JMP | Opcodes.EXIT, 0, 0, 0, 0))), LoadOptions.defaults());
        assertThat(e.run(RunContext.builder().build())).isEqualTo(3);
        e.close();
        assertThatThrownBy(() -> e.run(RunContext.builder().build())).isInstanceOf(IllegalStateException.class).hasMessageContaining("'c' was closed");
    }

    @Test void unknownHelperAndEmptyProgramAreLoadErrorsNamingThePc() {
        Program p = new ProgramBuilder().mov64(R0, 0).call(999).exit().build("h");
        assertThatThrownBy(() -> jvm.load(p, LoadOptions.defaults())).isInstanceOf(BpfLoadException.class)
                .hasMessage("program 'h' pc 1: call to unknown helper id 999 (not in LoadOptions.helpers())");
        assertThatThrownBy(() -> jvm.load(new Program("e", List.of()), LoadOptions.defaults())).isInstanceOf(BpfLoadException.class)
                .hasMessageContaining("empty program");
    }

    @Test void aTailCallIntoAnotherEnginesProgramFailsClearly() {
        try (MapTable maps = MapTable.create(List.of(new MapDefinition("jmp", MapType.PROG_ARRAY, 4, 4, 1, 0)))) {
            LoadOptions o = LoadOptions.defaults().withHelpers(BpfHelpers.registry(maps));
            Program target = new ProgramBuilder().mov64(R0, 1).exit().build("t");
            Program main = new ProgramBuilder().lddw(R2, maps.handle("jmp")).mov64(R3, 0).call(HelperIds.TAIL_CALL).mov64(R0, 2).exit().build("m");
            try (Executable foreign = Bpf.load(target, new InterpreterEngine(), o); Executable e = Bpf.load(main, jvm, o)) {
                ((ProgArrayMap) maps.map(0)).set(0, foreign, MapFlags.BPF_ANY);
                assertThat(jvm.canTailCallInto(foreign)).isFalse();
                assertThatThrownBy(() -> e.run(RunContext.builder().build())).isInstanceOfSatisfying(BpfRuntimeException.class, x -> {
                    assertThat(x.kind()).isEqualTo(ErrorKind.HELPER_FAILED);
                    assertThat(x.pc()).isEqualTo(3);
                    assertThat(x.getMessage()).contains("not a program loaded by the jvm engine");
                });
            }
        }
    }

    @Test void aHelperCallKeptPastItsRunFails() {
        java.util.concurrent.atomic.AtomicReference<dev.bpf4j.runtime.HelperCall> kept = new java.util.concurrent.atomic.AtomicReference<>();
        dev.bpf4j.runtime.HelperRegistry h = dev.bpf4j.runtime.HelperRegistry.builder().add(7000, "keep", (c, a, b, d, f, g) -> {
            kept.set(c);
            return 5;
        }).build();
        try (Executable e = jvm.load(new ProgramBuilder().call(7000).exit().build("k"), LoadOptions.defaults().withHelpers(h))) {
            assertThat(e.run(RunContext.builder().build())).isEqualTo(5);
            assertThat(kept.get().programName()).isEqualTo("k");
            assertThatThrownBy(() -> kept.get().pc()).isInstanceOf(IllegalStateException.class).hasMessageContaining("has ended");
        }
    }

    /** The first thread to run owns a machine (no atomics): a run re-entered from a helper on that thread gets another one. */
    @Test void aRunReEnteredFromAHelperHasItsOwnFrame() {
        java.util.concurrent.atomic.AtomicReference<Executable> self = new java.util.concurrent.atomic.AtomicReference<>();
        dev.bpf4j.runtime.HelperRegistry h = dev.bpf4j.runtime.HelperRegistry.builder().add(7001, "again", (c, a, b, d, f, g) ->
                a == 0 ? 0 : self.get().run(RunContext.builder().arg(1, a - 1).build())).build();
        // [r10-8] = n; r0 = run(n - 1); r0 += [r10-8]: n + (n-1) + ... + 1 only if each run kept its own frame
        Program p = new ProgramBuilder().stxdw(R10, -8, R1).call(7001).ldxdw(R1, R10, -8).add64(R0, R1).exit().build("again");
        try (Executable e = jvm.load(p, LoadOptions.defaults().withHelpers(h))) {
            self.set(e);
            for (int n = 0; n < 3; n++) assertThat(e.run(RunContext.builder().arg(1, 10).build())).isEqualTo(55);
        }
    }

    @Test void theOwnersMachineIsReusedAndClean() {
        // the same thread runs many times: every run sees a zeroed frame and fresh registers
        Program p = new ProgramBuilder().ldxdw(R0, R10, -8).add64(R0, R6).stxdw(R10, -8, R1).mov64(R6, R1).exit().build("clean");
        try (Executable e = jvm.load(p, LoadOptions.defaults().withEntryArgs(1))) { // unverified: it reads what no path wrote
            for (int i = 1; i <= 3; i++) assertThat(e.run(RunContext.builder().arg(1, i).build())).isZero();
        }
    }

    @Test void closingFromAnotherThreadStopsTheOwnerToo() throws Exception {
        Executable e = jvm.load(new ProgramBuilder().mov64(R0, 7).exit().build("owned"), LoadOptions.defaults());
        assertThat(e.run(RunContext.builder().build())).isEqualTo(7); // this thread now owns a machine
        Thread closer = new Thread(e::close);
        closer.start();
        closer.join();
        assertThatThrownBy(() -> e.run(RunContext.builder().build())).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        e.close(); // idempotent, and frees this thread's machine
    }
}
