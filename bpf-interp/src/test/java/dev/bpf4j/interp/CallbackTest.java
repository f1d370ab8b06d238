package dev.bpf4j.interp;

import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.asm.ProgramBuilder;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

import static dev.bpf4j.interp.Funcs.func;
import static dev.bpf4j.interp.Funcs.link;
import static dev.bpf4j.isa.Reg.*;
import static org.assertj.core.api.Assertions.assertThat;

/** bpf_loop and bpf_for_each_map_elem: callbacks as bpf-to-bpf calls (docs/runtime-semantics.md "Callbacks"). */
class CallbackTest {
    static final int E2BIG = -7, EINVAL = -22;

    final MapTable maps = MapTable.create(List.of(
            new MapDefinition("arr", MapType.ARRAY, 4, 8, 4, 0),
            new MapDefinition("hash", MapType.HASH, 4, 8, 8, 0),
            new MapDefinition("pcpu", MapType.PERCPU_ARRAY, 4, 8, 2, 0)));
    /** out[0], out[1]: what the programs report besides r0. */
    final long out = NativeMemory.allocate(16);

    @AfterEach
    void close() {
        maps.close();
        NativeMemory.free(out);
    }

    long run(Program p, long budget) {
        LoadOptions o = LoadOptions.defaults().withHelpers(BpfHelpers.registry(maps));
        try (Executable e = Bpf.load(p, Runner.ENGINE, o)) {
            RunContext.Builder ctx = RunContext.builder().arg(1, out).region(new MemoryRegion("out", out, 16, true)).budget(budget);
            maps.regions().forEach(ctx::region);
            return e.run(ctx.build());
        }
    }

    long run(Program p) { return run(p, 1_000_000); }

    long out(int i) { return NativeMemory.getLong(out + 8L * i); }

    // ---- bpf_loop ----

    /** bpf_loop(n, cb, ctx = out, flags); out[1] = its result. cb: out[0] += i + 1; stops (returns 1) when i == stopAt. */
    Program loop(long n, int stopAt, int flags) {
        ProgramBuilder main = new ProgramBuilder()
                .mov64(R6, R1)
                .lddw(R1, n);
        func(main, R2, 0)
                .mov64(R3, R6).mov64(R4, flags)
                .call(HelperIds.LOOP)
                .stxdw(R6, 8, R0)
                .mov64(R0, 0).exit();
        ProgramBuilder cb = new ProgramBuilder()
                .ldxdw(R3, R2, 0).add64(R3, R1).add64(R3, 1).stxdw(R2, 0, R3)
                .mov64(R0, 0)
                .jne(R1, stopAt, "out")
                .mov64(R0, 1)
                .label("out").exit();
        return link("test", main, cb);
    }

    @Test
    void loopRunsTheCallbackWithIndexAndContext() {
        assertThat(run(loop(10, -1, 0))).isZero();
        assertThat(out(0)).isEqualTo(55);
        assertThat(out(1)).isEqualTo(10);
    }

    @Test
    void loopStopsWhenTheCallbackReturnsOneAndCountsThatIteration() {
        run(loop(10, 3, 0));
        assertThat(out(0)).isEqualTo(1 + 2 + 3 + 4);
        assertThat(out(1)).isEqualTo(4);
    }

    @Test
    void loopOfZeroIterations() {
        run(loop(0, -1, 0));
        assertThat(out(0)).isZero();
        assertThat(out(1)).isZero();
    }

    @Test
    void loopRejectsFlagsAndTooManyIterationsWithoutCalling() {
        run(loop(10, -1, 1));
        assertThat(out(1)).isEqualTo(EINVAL);
        run(loop((1 << 23) + 1, -1, 0));
        assertThat(out(1)).isEqualTo(E2BIG);
        assertThat(out(0)).isZero();
        // nr_loops is a u32: the upper half of r1 is ignored
        run(loop((1L << 32) | 3, -1, 0));
        assertThat(out(1)).isEqualTo(3);
    }

    @Test
    void everyCallbackSpendsBudgetAtTheHelperCall() {
        // pc of "call bpf_loop": mov, lddw(2), lddw(2), mov, mov -> 7
        Errors.expect(ErrorKind.BUDGET_EXCEEDED, 7, () -> run(loop(10, -1, 0), 5));
        assertThat(out(0)).isEqualTo(1 + 2 + 3 + 4 + 5);
        run(loop(5, -1, 0), 5);
        assertThat(out(1)).isEqualTo(5);
    }

    @Test
    void aCallbackReturnsANumber() {
        // a subprogram may leave r0 unset for a caller that never reads it; a callback may not (prepare_func_exit)
        ProgramBuilder main = new ProgramBuilder().mov64(R1, 1);
        func(main, R2, 0).mov64(R3, 0).mov64(R4, 0).call(HelperIds.LOOP).exit();
        rejectedAt(link("test", main, new ProgramBuilder().exit()), 7, "R0 not a scalar value");
        ProgramBuilder returnsFp = new ProgramBuilder().mov64(R0, R10).exit();
        rejectedAt(link("test", main, returnsFp), 8, "cannot return stack pointer to the caller");
    }

    @Test
    void callbacksOpenFramesUpToTheLimit() {
        // cb: bpf_loop(1, cb, 0, 0) again: the 8th frame's call would open a 9th
        ProgramBuilder main = new ProgramBuilder().mov64(R1, 1);
        func(main, R2, 0).mov64(R3, 0).mov64(R4, 0).call(HelperIds.LOOP).exit();
        ProgramBuilder cb = new ProgramBuilder().mov64(R1, 1);
        // r0 = 0: a callback returns 0 or 1 (bpf_loop's own result would be refused at the exit)
        func(cb, R2, 0).mov64(R3, 0).mov64(R4, 0).call(HelperIds.LOOP).mov64(R0, 0).exit();
        Program p = link("test", main, cb);
        // cb starts at pc 7; its call is at 7 + 5: the verifier follows the callbacks to the frame limit
        rejectedAt(p, 12, "the call stack of 9 frames is too deep");
    }

    @Test
    void callbackKeepsTheCallersRegistersAndFrame() {
        // main keeps r6-r9 and a stack slot across bpf_loop; the callback clobbers r6-r9 and its own stack
        ProgramBuilder main = new ProgramBuilder()
                .mov64(R6, 6).mov64(R7, 7).mov64(R8, 8).mov64(R9, 9)
                .st(dev.bpf4j.isa.Opcodes.DW, R10, -8, 42)
                .mov64(R1, 3);
        func(main, R2, 0).mov64(R3, 0).mov64(R4, 0).call(HelperIds.LOOP)
                .ldxdw(R0, R10, -8)
                .add64(R0, R6).add64(R0, R7).add64(R0, R8).add64(R0, R9)
                .exit();
        ProgramBuilder cb = new ProgramBuilder()
                .mov64(R6, 0).mov64(R7, 0).mov64(R8, 0).mov64(R9, 0)
                .st(dev.bpf4j.isa.Opcodes.DW, R10, -8, 0)
                .mov64(R0, 0).exit();
        assertThat(run(link("test", main, cb))).isEqualTo(42 + 6 + 7 + 8 + 9);
    }

    @Test
    void aHandleThatIsNotAFunctionAddressIsABadArgument() {
        Program p = new ProgramBuilder().mov64(R1, 1).lddw(R2, 0x1234).mov64(R3, 0).mov64(R4, 0)
                .call(HelperIds.LOOP).exit().build("test");
        rejectedAt(p, 5, "R2 type=scalar expected=func");
    }

    // ---- bpf_for_each_map_elem ----

    /** for_each(map, cb, ctx = out, flags); out[1] = result. cb: out[0] += *value + 1000 * *key; returns 1 once *key == stopKey. */
    Program forEach(String map, int stopKey, int flags) {
        ProgramBuilder main = new ProgramBuilder()
                .mov64(R6, R1)
                .lddw(R1, maps.handle(map));
        func(main, R2, 0)
                .mov64(R3, R6).mov64(R4, flags)
                .call(HelperIds.FOR_EACH_MAP_ELEM)
                .stxdw(R6, 8, R0)
                .mov64(R0, 0).exit();
        ProgramBuilder cb = new ProgramBuilder()
                .ldxw(R5, R2, 0).mul64(R5, 1000)
                .ldxdw(R0, R3, 0).add64(R5, R0)
                .ldxdw(R0, R4, 0).add64(R0, R5).stxdw(R4, 0, R0)
                .ldxw(R5, R2, 0)
                .mov64(R0, 0)
                .jne(R5, stopKey, "out")
                .mov64(R0, 1)
                .label("out").exit();
        return link("test", main, cb);
    }

    static byte[] le32(int v) { return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v).array(); }

    static byte[] le64(long v) { return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array(); }

    void fillArray() {
        BpfMap arr = maps.map("arr").orElseThrow();
        for (int i = 0; i < 4; i++) arr.update(le32(i), le64(10L * (i + 1)), 0);
    }

    @Test
    void forEachArrayVisitsEveryIndexInOrder() {
        fillArray();
        run(forEach("arr", -1, 0));
        assertThat(out(0)).isEqualTo(10 + 20 + 30 + 40 + 1000 * (0 + 1 + 2 + 3));
        assertThat(out(1)).isEqualTo(4);
    }

    @Test
    void forEachArrayStopsAndCountsTheStoppingElement() {
        fillArray();
        run(forEach("arr", 1, 0));
        assertThat(out(0)).isEqualTo(10 + 20 + 1000);
        assertThat(out(1)).isEqualTo(2);
    }

    @Test
    void forEachRejectsFlags() {
        fillArray();
        run(forEach("arr", -1, 2));
        assertThat(out(1)).isEqualTo(EINVAL);
        assertThat(out(0)).isZero();
    }

    @Test
    void forEachPerCpuArrayPassesThisCpusValue() {
        BpfMap pcpu = maps.map("pcpu").orElseThrow();
        for (int i = 0; i < 2; i++) {
            ByteBuffer all = ByteBuffer.allocate(pcpu.javaValueSize()).order(ByteOrder.LITTLE_ENDIAN);
            while (all.hasRemaining()) all.putLong(7L * (i + 1)); // the same on every CPU
            pcpu.update(le32(i), all.array(), 0);
        }
        run(forEach("pcpu", -1, 0));
        assertThat(out(0)).isEqualTo(7 + 14 + 1000);
        assertThat(out(1)).isEqualTo(2);
    }

    @Test
    void forEachHashVisitsEveryElement() {
        BpfMap hash = maps.map("hash").orElseThrow();
        for (int k = 1; k <= 3; k++) hash.update(le32(k), le64(100L * k), 0);
        run(forEach("hash", -1, 0));
        assertThat(out(0)).isEqualTo(600 + 6000);
        assertThat(out(1)).isEqualTo(3);
    }

    @Test
    void forEachHashStopsAtTheFirstElementThatSaysSo() {
        BpfMap hash = maps.map("hash").orElseThrow();
        for (int k = 1; k <= 3; k++) hash.update(le32(k), le64(100L * k), 0);
        // expected: the keys in get_next_key order up to and including key 2
        long sum = 0, count = 0;
        for (byte[] k : hash.keyList()) {
            sum += 1100L * k[0];
            count++;
            if (k[0] == 2) break;
        }
        run(forEach("hash", 2, 0));
        assertThat(out(1)).isEqualTo(count);
        assertThat(out(0)).isEqualTo(sum);
    }

    @Test
    void forEachEmptyHash() {
        run(forEach("hash", -1, 0));
        assertThat(out(1)).isZero();
    }

    @Test
    void callbackMayDeleteTheElementItVisits() {
        BpfMap hash = maps.map("hash").orElseThrow();
        for (int k = 1; k <= 5; k++) hash.update(le32(k), le64(k), 0);
        ProgramBuilder main = new ProgramBuilder().mov64(R6, R1).lddw(R1, maps.handle("hash"));
        func(main, R2, 0).mov64(R3, 0).mov64(R4, 0).call(HelperIds.FOR_EACH_MAP_ELEM).exit();
        // cb(map, key, value, ctx): bpf_map_delete_elem(map, key) — the key buffer is readable by helpers
        ProgramBuilder cb = new ProgramBuilder().call(HelperIds.MAP_DELETE_ELEM).mov64(R0, 0).exit();
        assertThat(run(link("test", main, cb))).isEqualTo(5);
        assertThat(hash.keyList()).isEmpty();
    }

    @Test
    void theKeyIsReadOnly() {
        fillArray();
        ProgramBuilder main = new ProgramBuilder().lddw(R1, maps.handle("arr"));
        func(main, R2, 0).mov64(R3, 0).mov64(R4, 0).call(HelperIds.FOR_EACH_MAP_ELEM).exit();
        ProgramBuilder cb = new ProgramBuilder().st(dev.bpf4j.isa.Opcodes.W, R2, 0, 9).mov64(R0, 0).exit();
        // the callback starts at pc 8 (lddw 2, lddw 2, mov, mov, call, exit)
        Errors.expect(ErrorKind.OUT_OF_BOUNDS, 8, () -> run(link("test", main, cb)));
    }

    @Test
    void theKeyIsNotReadableAfterTheHelperReturns() {
        fillArray();
        // cb stores the key pointer in out[0]; main then reads through it
        ProgramBuilder main = new ProgramBuilder().mov64(R6, R1).lddw(R1, maps.handle("arr"));
        func(main, R2, 0).mov64(R3, R6).mov64(R4, 0).call(HelperIds.FOR_EACH_MAP_ELEM)
                .ldxdw(R1, R6, 0).ldxw(R0, R1, 0).exit();
        ProgramBuilder cb = new ProgramBuilder().stxdw(R4, 0, R2).mov64(R0, 1).exit();
        // the callback stores (pc 11) the key pointer into memory leaks it
        rejectedAt(link("test", main, cb), 11, "R2 leaks addr into mem");
    }

    @Test
    void forEachOfAMapTypeItCannotIterate() {
        MapTable other = MapTable.create(List.of(new MapDefinition("q", MapType.QUEUE, 0, 8, 2, 0)));
        try {
            ProgramBuilder main = new ProgramBuilder().lddw(R1, other.handle("q"));
            func(main, R2, 0).mov64(R3, 0).mov64(R4, 0).call(HelperIds.FOR_EACH_MAP_ELEM).exit();
            ProgramBuilder cb = new ProgramBuilder().mov64(R0, 0).exit();
            LoadOptions o = LoadOptions.defaults().withHelpers(BpfHelpers.registry(other));
            try (Executable e = Bpf.load(link("test", main, cb), Runner.ENGINE, o)) {
                assertThat(Errors.expect(ErrorKind.BAD_HELPER_ARGUMENT, 6, () -> e.run(RunContext.builder().build())).getMessage())
                        .contains("QUEUE");
            }
        } finally {
            other.close();
        }
    }

    @Test
    void anExitInsideACallbackEndsTheWholeRun() {
        // helper 5 ends the run with r0 = its r1 when r1 != 0: the callback calls it at index 2
        ProgramBuilder main = new ProgramBuilder().mov64(R6, R1).mov64(R1, 10);
        func(main, R2, 0).mov64(R3, R6).mov64(R4, 0).call(HelperIds.LOOP).mov64(R0, -1).exit();
        ProgramBuilder cb = new ProgramBuilder()
                .ldxdw(R3, R2, 0).add64(R3, 1).stxdw(R2, 0, R3)
                .jne(R1, 2, "go")
                .mov64(R1, 55).call(5)
                .label("go").mov64(R0, 0).exit();
        LoadOptions o = LoadOptions.defaults().withHelpers(BpfHelpers.registry(maps).toBuilder()
                .add(5, "stop", (c, r1, r2, r3, r4, r5) -> { c.exit(r1); return 0; }).build());
        try (Executable e = Bpf.load(link("test", main, cb), Runner.ENGINE, o)) {
            assertThat(e.run(RunContext.builder().arg(1, out).region(new MemoryRegion("out", out, 16, true)).build())).isEqualTo(55);
        }
        assertThat(out(0)).isEqualTo(3);
    }

    @Test
    void aHandleOfAnotherProgramIsRefused() {
        // program A cannot leak its callback handle through out[0]; program B cannot pass a number as a callback
        ProgramBuilder a = new ProgramBuilder().mov64(R6, R1);
        func(a, R2, 0).stxdw(R6, 0, R2).mov64(R0, 0).exit();
        rejectedAt(link("test", a, new ProgramBuilder().mov64(R0, 1).exit()), 3, "R2 leaks addr into mem");
        ProgramBuilder b = new ProgramBuilder().mov64(R6, R1).mov64(R1, 1).ldxdw(R2, R6, 0).mov64(R3, 0).mov64(R4, 0)
                .call(HelperIds.LOOP).exit();
        ProgramBuilder cb = new ProgramBuilder().mov64(R0, 1).exit();
        rejectedAt(link("test", b, cb), 5, "R2 type=scalar expected=func");
    }

    @Test
    void functionAddressOutsideTheProgramIsALoadError() {
        Program p = new Program("test", List.of(new dev.bpf4j.isa.Insn(0x18, 2, 4, 0, 5), new dev.bpf4j.isa.Insn(0, 0, 0, 0, 0),
                new dev.bpf4j.isa.Insn(0xb7, 0, 0, 0, 0), new dev.bpf4j.isa.Insn(0x95, 0, 0, 0, 0)));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Runner.ENGINE.load(p, LoadOptions.defaults()))
                .isInstanceOf(dev.bpf4j.runtime.BpfLoadException.class)
                .hasMessageContaining("pc 0").hasMessageContaining("function address (lddw src=4) target 6 is outside the program");
    }

    @Test
    void everyCallbackFrameStartsZeroed() {
        // cb: out[0] += stack[-8]; stack[-8] = 99 — the next callback's frame must read 0 again
        ProgramBuilder main = new ProgramBuilder().mov64(R6, R1).mov64(R1, 3);
        func(main, R2, 0).mov64(R3, R6).mov64(R4, 0).call(HelperIds.LOOP).exit();
        ProgramBuilder cb = new ProgramBuilder()
                .ldxdw(R3, R10, -8).ldxdw(R4, R2, 0).add64(R4, R3).stxdw(R2, 0, R4)
                .st(dev.bpf4j.isa.Opcodes.DW, R10, -8, 99)
                .mov64(R0, 0).exit();
        assertThat(run(link("test", main, cb))).isEqualTo(3);
        assertThat(out(0)).isZero();
    }

    /** The verifier refuses {@code p} at {@code pc}, on the interpreter's load as on every engine's. */
    private void rejectedAt(Program p, int pc, String reason) {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> run(p))
                .isInstanceOfSatisfying(dev.bpf4j.verifier.VerifierException.class, v -> {
                    assertThat(v.pc()).as(v.getMessage()).isEqualTo(pc);
                    assertThat(v.reason()).contains(reason);
                });
    }
}
