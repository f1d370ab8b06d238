package dev.bpf4j.interp;

import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.asm.ProgramBuilder;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapFlags;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.maps.ProgArrayMap;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.Limits;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.bpf4j.isa.Reg.*;
import static org.assertj.core.api.Assertions.assertThat;

/** bpf_tail_call (docs/runtime-semantics.md "Tail calls"). */
class TailCallTest {
    final MapTable maps = MapTable.create(List.of(new MapDefinition("jmp", MapType.PROG_ARRAY, 4, 4, 4, 0)));
    final ProgArrayMap jmp = (ProgArrayMap) maps.map("jmp").orElseThrow();
    final List<Executable> loaded = new ArrayList<>();
    /** The context: out[0] counts program entries, out[1] records which programs ran. */
    final long ctx = NativeMemory.allocate(16);

    @AfterEach
    void close() {
        loaded.forEach(Executable::close);
        maps.close();
        NativeMemory.free(ctx);
    }

    Executable load(Program p) {
        Executable e = Bpf.load(p, Runner.ENGINE, LoadOptions.defaults().withHelpers(BpfHelpers.registry(maps)));
        loaded.add(e);
        return e;
    }

    long run(Executable e) {
        return e.run(RunContext.builder().arg(1, ctx).region(new MemoryRegion("ctx", ctx, 16, true)).build());
    }

    long out(int i) { return NativeMemory.getLong(ctx + 8L * i); }

    /**
     * ctx->count++; ctx->trace = ctx->trace * 10 + id; tail_call(ctx, jmp, index); then (fall-through)
     * returns 100 + id + r0 of the helper.
     */
    Program hop(String name, int id, long index) {
        return new ProgramBuilder()
                .mov64(R6, R1)
                .ldxdw(R2, R6, 0).add64(R2, 1).stxdw(R6, 0, R2)
                .ldxdw(R2, R6, 8).mul64(R2, 10).add64(R2, id).stxdw(R6, 8, R2)
                .mov64(R1, R6)
                .lddw(R2, maps.handle("jmp"))
                .lddw(R3, index)
                .call(HelperIds.TAIL_CALL)
                .add64(R0, 100 + id)
                .exit()
                .build(name);
    }

    @Test
    void chainReplacesTheProgramAndNeverReturns() {
        Executable a = load(hop("a", 1, 1));
        jmp.set(1, load(hop("b", 2, 2)), MapFlags.BPF_ANY);
        jmp.set(2, load(hop("c", 3, 3)), MapFlags.BPF_ANY);
        // c tail calls the empty slot 3 and falls through: 100 + 3 + r0 (0)
        assertThat(run(a)).isEqualTo(103);
        assertThat(out(0)).isEqualTo(3);
        assertThat(out(1)).isEqualTo(123);
    }

    @Test
    void atMost33TailCallsPerRunThenFallsThrough() {
        Executable self = load(hop("self", 1, 0));
        jmp.set(0, self, MapFlags.BPF_ANY);
        assertThat(run(self)).isEqualTo(101);
        assertThat(out(0)).isEqualTo(1 + Limits.MAX_TAIL_CALLS);
        // the count is per run
        NativeMemory.putLong(ctx, 0);
        run(self);
        assertThat(out(0)).isEqualTo(1 + Limits.MAX_TAIL_CALLS);
    }

    @Test
    void neitherEmptySlotsNorIndexesPastTheEndCountTowardsTheLimit() {
        // "probe" tail calls the empty slot 3 forty times, then slot 0: still allowed, as on Linux 6.18's x86-64 JIT
        Program probe = new ProgramBuilder()
                .mov64(R6, R1).mov64(R7, 0)
                .label("again")
                .mov64(R1, R6).lddw(R2, maps.handle("jmp")).mov64(R3, 3).call(HelperIds.TAIL_CALL)
                .add64(R7, 1).jlt(R7, Limits.MAX_TAIL_CALLS + 7, "again")
                // an index past max_entries neither counts nor switches
                .mov64(R1, R6).lddw(R2, maps.handle("jmp")).mov64(R3, 99).call(HelperIds.TAIL_CALL)
                .mov64(R1, R6).lddw(R2, maps.handle("jmp")).mov64(R3, 0).call(HelperIds.TAIL_CALL)
                .mov64(R0, 7).exit()
                .build("probe");
        Executable e = load(probe);
        jmp.set(0, load(hop("reached", 9, 3)), MapFlags.BPF_ANY);
        assertThat(run(e)).isEqualTo(109);
        assertThat(out(0)).isEqualTo(1);
    }

    @Test
    void emptySlotFallsThroughWithR0Zero() {
        Executable a = load(hop("a", 5, 2));
        assertThat(run(a)).isEqualTo(105);
        jmp.set(2, load(hop("b", 6, 99)), MapFlags.BPF_ANY);
        jmp.clear(2);
        assertThat(run(a)).isEqualTo(105);
    }

    @Test
    void targetKeepsTheStackFrameAndRegisters() {
        // writer: r7 = 77, stack[-8] = 5, tail call slot 0; reader returns stack[-8] + r7
        Program writer = new ProgramBuilder()
                .mov64(R7, 77).st(Opcodes.DW, R10, -8, 5)
                .lddw(R2, maps.handle("jmp")).mov64(R3, 0).call(HelperIds.TAIL_CALL)
                .mov64(R0, -1).exit().build("writer");
        // reader reads r7 and stack it did not write: only a test of the engine, a verifier would refuse it
        Program reader = new ProgramBuilder().mov64(R7, R7).ldxdw(R0, R10, -8).add64(R0, R7).exit().build("reader");
        Executable w = Runner.ENGINE.load(writer, LoadOptions.defaults().withHelpers(BpfHelpers.registry(maps)));
        loaded.add(w);
        jmp.set(0, Runner.ENGINE.load(reader, LoadOptions.defaults()), MapFlags.BPF_ANY);
        loaded.add((Executable) jmp.program(0));
        assertThat(run(w)).isEqualTo(82);
    }

    @Test
    void errorsAfterATailCallNameTheTarget() {
        Executable a = load(hop("a", 1, 0));
        Program bad = new ProgramBuilder().mov64(R0, 0).ldxdw(R0, R0, 0).exit().build("bad");
        jmp.set(0, load(bad), MapFlags.BPF_ANY);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> run(a))
                .isInstanceOfSatisfying(dev.bpf4j.runtime.BpfRuntimeException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ErrorKind.OUT_OF_BOUNDS);
                    assertThat(e.program()).isEqualTo("bad");
                    assertThat(e.pc()).isEqualTo(1);
                });
    }

    @Test
    void aForeignObjectInTheSlotIsRefused() {
        Executable a = load(hop("test", 1, 0));
        jmp.set(0, "not a program", MapFlags.BPF_ANY);
        assertThat(Errors.expect(ErrorKind.HELPER_FAILED, 13, () -> run(a)).getMessage()).contains("java.lang.String", "interp engine");
        assertThat(Runner.ENGINE.canTailCallInto("not a program")).isFalse();
        assertThat(Runner.ENGINE.canTailCallInto(a)).isTrue();
    }

    @Test
    void aClosedTargetIsRefused() {
        Executable a = load(hop("test", 1, 0));
        Executable b = load(hop("b", 2, 0));
        jmp.set(0, b, MapFlags.BPF_ANY);
        b.close();
        assertThat(Errors.expect(ErrorKind.HELPER_FAILED, 13, () -> run(a)).getMessage()).contains("'b' was closed");
    }

    @Test
    void onlyTheMainProgramMayTailCall() {
        Program p = new ProgramBuilder()
                .callLocal("sub").exit()
                .label("sub")
                .lddw(R2, maps.handle("jmp")).mov64(R3, 0).call(HelperIds.TAIL_CALL).exit()
                .build("test");
        Executable e = load(p);
        jmp.set(0, e, MapFlags.BPF_ANY);
        assertThat(Errors.expect(ErrorKind.HELPER_FAILED, 5, () -> run(e)).getMessage()).contains("main program");
    }

    @Test
    void budgetIsSharedAcrossTheChain() {
        // each hop spends one back-edge; 34 programs run, so a budget of 10 stops the 11th back-edge
        Program looping = new ProgramBuilder()
                .mov64(R6, R1).mov64(R7, 0)
                .label("l").add64(R7, 1).jlt(R7, 2, "l")
                .mov64(R1, R6).lddw(R2, maps.handle("jmp")).mov64(R3, 0).call(HelperIds.TAIL_CALL)
                .mov64(R0, 0).exit().build("test");
        Executable e = load(looping);
        jmp.set(0, e, MapFlags.BPF_ANY);
        Errors.expect(ErrorKind.BUDGET_EXCEEDED, 3, () -> e.run(RunContext.builder().arg(1, ctx).budget(10).build()));
        assertThat(e.run(RunContext.builder().arg(1, ctx).budget(34).build())).isZero();
    }
}
