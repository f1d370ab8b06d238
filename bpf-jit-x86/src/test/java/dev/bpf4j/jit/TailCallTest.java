package dev.bpf4j.jit;

import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.asm.ProgramBuilder;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.maps.ProgArrayMap;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;

import static dev.bpf4j.isa.Reg.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * bpf_tail_call on the JIT against the interpreter: same r0, error (kind, pc, program), out memory.
 * Programs take r1 = out (32 bytes): out[0] counts entries of the caller, out[8] is the slot to
 * jump to, out[16..31] is what a target reports.
 */
class TailCallTest {
    static final int OUT = 32;
    /** Slot value meaning "the caller program itself". */
    static final LongFunction<Program> SELF = h -> null;

    /** out[0]++; [r10-8] = 0x1234; bpf_tail_call(out, jmp, out[8]); fall through: r0 = 0xfa11. */
    static Program caller(long jmp) {
        return new ProgramBuilder()
                .mov64(R6, R1)
                .ldxdw(R2, R6, 0).add64(R2, 1).stxdw(R6, 0, R2)
                .st(Opcodes.DW, R10, -8, 0x1234)
                .lddw(R2, jmp).ldxdw(R3, R6, 8).mov64(R1, R6)
                .call(HelperIds.TAIL_CALL)
                .mov64(R0, 0xfa11).exit().build("caller");
    }

    /**
     * Sees the caller's stack and registers: out[16] = [r10-8], out[24] = (r2 - jmp) ^ r3 (r2 is the
     * map's handle, an address that differs between the two engines' runs); r0 = r6 - r1 + 0x77.
     */
    static Program stackReader(long jmp) {
        return new ProgramBuilder()
                .ldxdw(R7, R10, -8).stxdw(R1, 16, R7)
                .lddw(R8, jmp).mov64(R7, R2).sub64(R7, R8).xor64(R7, R3).stxdw(R1, 24, R7)
                .mov64(R0, R6).sub64(R0, R1).add64(R0, 0x77).exit().build("reader");
    }

    /** Its main function is also called (entry trampoline): r0 = 5 + 100 + [r10-8]. */
    static Program recursive(long jmp) {
        return I.prog("recursive", I.jmp(Opcodes.JEQ, 1, 0, 6), I.mov64(1, 0), I.callLocal(-3),
                I.alu64(Opcodes.ADD, 0, 100), I.ldx(Opcodes.DW, 2, 10, -8), I.alu64r(Opcodes.ADD, 0, 2), I.exit(),
                I.mov64(0, 5), I.exit());
    }

    /**
     * Reads address 16, outside everything: OUT_OF_BOUNDS in the target at pc 2. (Not r1 + 4096: a
     * fixed distance from the out buffer can land in a live frame of the interpreter's machine.)
     */
    static Program outOfBounds(long jmp) {
        return new ProgramBuilder().lddw(R1, 16).ldxdw(R0, R1, 0).exit().build("oob");
    }

    /** Spins until the (shared) budget runs out. */
    static Program spinner(long jmp) {
        return I.prog("spin", I.mov64(0, 0), I.alu64(Opcodes.ADD, 0, 1), I.ja(-2), I.exit());
    }

    /** The tail call made from a subprogram: HELPER_FAILED. */
    static Program fromSubprogram(long jmp) {
        return new ProgramBuilder()
                .mov64(R6, R1).callLocal("sub").exit()
                .label("sub")
                .lddw(R2, jmp).ldxdw(R3, R6, 8).mov64(R1, R6)
                .call(HelperIds.TAIL_CALL).mov64(R0, 1).exit().build("fromsub");
    }

    String run(Engine engine, LongFunction<Program> main, long index, List<LongFunction<Program>> slots, long budget) {
        long out = NativeMemory.allocate(OUT);
        List<Executable> loaded = new ArrayList<>();
        try (MapTable maps = MapTable.create(List.of(new MapDefinition("jmp", MapType.PROG_ARRAY, 4, 4, 4, 0)))) {
            NativeMemory.setMemory(out, OUT, (byte) 0);
            NativeMemory.putLong(out + 8, index);
            long jmp = maps.handle("jmp");
            LoadOptions o = LoadOptions.defaults().withHelpers(BpfHelpers.registry(maps));
            Executable m = engine.load(main.apply(jmp), o);
            loaded.add(m);
            ProgArrayMap arr = (ProgArrayMap) maps.map("jmp").orElseThrow();
            for (int k = 0; k < slots.size(); k++) {
                if (slots.get(k) == null) continue;
                Executable x = slots.get(k) == SELF ? m : engine.load(slots.get(k).apply(jmp), o);
                if (x != m) loaded.add(x);
                arr.set(k, x, 0);
            }
            StringBuilder s = new StringBuilder();
            try {
                long r0 = m.run(RunContext.builder().arg(1, out).region(new MemoryRegion("out", out, OUT, true)).budget(budget).build());
                s.append("r0=").append(Long.toHexString(r0));
            } catch (BpfRuntimeException e) {
                s.append(e.kind()).append('@').append(e.program()).append(':').append(e.pc());
            }
            s.append(" out=");
            for (byte b : NativeMemory.read(out, OUT)) s.append(String.format("%02x", b & 0xff));
            return s.toString();
        } finally {
            loaded.forEach(Executable::close);
            NativeMemory.free(out);
        }
    }

    String agree(LongFunction<Program> main, long index, List<LongFunction<Program>> slots, long budget) {
        String want = run(Both.INTERP, main, index, slots, budget);
        String got = run(Jit.ENGINE, main, index, slots, budget);
        assertThat(got).as("index " + index).isEqualTo(want);
        return got;
    }

    String agree(LongFunction<Program> main, long index, List<LongFunction<Program>> slots) { return agree(main, index, slots, 1_000_000); }

    @Test
    void theTargetKeepsTheFrameAndRegisters() {
        String r = agree(TailCallTest::caller, 0, List.of(TailCallTest::stackReader));
        assertThat(r).startsWith("r0=77 ").contains("3412000000000000"); // out[16] = the caller's [r10-8]
    }

    @Test
    void emptySlotsAndBadIndexesFallThrough() {
        List<LongFunction<Program>> slots = new ArrayList<>();
        slots.add(TailCallTest::stackReader);
        slots.add(null);
        assertThat(agree(TailCallTest::caller, 1, slots)).startsWith("r0=fa11 ");
        assertThat(agree(TailCallTest::caller, 7, slots)).startsWith("r0=fa11 ");
        assertThat(agree(TailCallTest::caller, -1, slots)).startsWith("r0=fa11 ");
    }

    @Test
    void atMost33TailCallsPerRun() {
        String r = agree(TailCallTest::caller, 0, List.of(SELF));
        assertThat(r).startsWith("r0=fa11 out=22000000"); // 1 entry + 33 tail calls
    }

    @Test
    void targetsWithAnEntryTrampolineAndErrorsInTargets() {
        assertThat(agree(TailCallTest::caller, 0, List.of(TailCallTest::recursive))).startsWith("r0=" + Long.toHexString(5 + 100 + 0x1234));
        assertThat(agree(TailCallTest::caller, 0, List.of(TailCallTest::outOfBounds))).startsWith("OUT_OF_BOUNDS@oob:2");
        assertThat(agree(TailCallTest::caller, 0, List.of(TailCallTest::spinner), 50)).startsWith("BUDGET_EXCEEDED@spin:2");
        // a program with a trampoline tail-calling itself
        assertThat(agree(TailCallTest::callerWithTrampoline, 0, List.of(SELF))).startsWith("r0=");
    }

    /** As {@link #caller} but its main function is also called (from a second entry path). */
    static Program callerWithTrampoline(long jmp) {
        List<dev.bpf4j.isa.Insn> c = new ArrayList<>(caller(jmp).insns());
        // pc 0: if r1 == 0 return 3 (the recursive path); else the caller body with one self-call first
        List<dev.bpf4j.isa.Insn> p = new ArrayList<>();
        p.add(I.jmp(Opcodes.JNE, 1, 0, 2));
        p.add(I.mov64(0, 3));
        p.add(I.exit());
        p.add(I.mov64r(7, 1));
        p.add(I.mov64(1, 0));
        p.add(I.callLocal(-6)); // to pc 0
        p.add(I.mov64r(1, 7));
        p.addAll(c);
        return new Program("tramp", p);
    }

    /** A helper that asks for a tail call and then ends the run: the exit wins, on both engines. */
    @Test
    void exitWinsOverATailCallOfTheSameHelperCall() {
        for (Engine engine : List.of(Both.INTERP, Jit.ENGINE)) {
            try (Executable target = engine.load(stackReader(0), LoadOptions.defaults())) {
                dev.bpf4j.runtime.HelperRegistry h = dev.bpf4j.runtime.HelperRegistry.builder().add(201, "tail_then_exit", (call, a, b, c, d, e) -> {
                    assertThat(call.tailCall(target)).isTrue();
                    call.exit(9);
                    return 0;
                }).build();
                try (Executable m = engine.load(I.prog("both", I.call(201), I.mov64(0, 1), I.exit()), LoadOptions.defaults().withHelpers(h))) {
                    assertThat(m.run(RunContext.builder().build())).as(engine.name()).isEqualTo(9);
                }
            }
        }
    }

    /** Tail-calls the empty slot 1 {@code empties} times, then slot 0: r0 = 0xfa11 when the limit stopped that one. */
    static LongFunction<Program> emptiesThenSlot0(int empties) {
        return jmp -> new ProgramBuilder()
                .mov64(R6, R1).mov64(R7, 0)
                .label("again").mov64(R1, R6).lddw(R2, jmp).mov64(R3, 1).call(HelperIds.TAIL_CALL)
                .add64(R7, 1).jlt(R7, empties, "again")
                .mov64(R1, R6).lddw(R2, jmp).mov64(R3, 0).call(HelperIds.TAIL_CALL)
                .mov64(R0, 0xfa11).exit().build("empties");
    }

    @Test
    void emptySlotsDoNotCountTowardsTheLimit() {
        List<LongFunction<Program>> slots = new ArrayList<>();
        slots.add(TailCallTest::stackReader);
        slots.add(null);
        assertThat(agree(emptiesThenSlot0(32), 0, slots)).startsWith("r0=77 ");
        assertThat(agree(emptiesThenSlot0(33), 0, slots)).startsWith("r0=77 "); // Linux 6.18's x86-64 JIT too
        assertThat(agree(emptiesThenSlot0(200), 0, slots)).startsWith("r0=77 ");
    }

    @Test
    void aClosedTargetIsRefused() {
        for (Engine engine : List.of(Both.INTERP, Jit.ENGINE)) {
            long out = NativeMemory.allocate(OUT);
            try (MapTable maps = MapTable.create(List.of(new MapDefinition("jmp", MapType.PROG_ARRAY, 4, 4, 4, 0)))) {
                NativeMemory.setMemory(out, OUT, (byte) 0);
                LoadOptions o = LoadOptions.defaults().withHelpers(BpfHelpers.registry(maps));
                try (Executable m = engine.load(caller(maps.handle("jmp")), o)) {
                    Executable target = engine.load(stackReader(0), o);
                    ((ProgArrayMap) maps.map("jmp").orElseThrow()).set(0, target, 0);
                    target.close();
                    try {
                        m.run(RunContext.builder().arg(1, out).region(new MemoryRegion("out", out, OUT, true)).build());
                        throw new AssertionError(engine.name() + ": expected HELPER_FAILED");
                    } catch (BpfRuntimeException e) {
                        assertThat(e.kind().name()).as(engine.name()).isEqualTo("HELPER_FAILED");
                        assertThat(e.pc()).as(engine.name()).isEqualTo(9);
                        assertThat(e.getMessage()).as(engine.name()).contains("was closed");
                    }
                }
            } finally {
                NativeMemory.free(out);
            }
        }
    }

    /** The target sees the caller's bytes where it wrote and zero elsewhere, also deep in the frame. */
    @Test
    void untouchedBytesReadAsZeroInTheTarget() {
        LongFunction<Program> deepWriter = jmp -> new ProgramBuilder()
                .mov64(R6, R1).st(Opcodes.DW, R10, -400, 0x55)
                .lddw(R2, jmp).mov64(R3, 0).mov64(R1, R6).call(HelperIds.TAIL_CALL).mov64(R0, 1).exit().build("deep");
        LongFunction<Program> deepReader = jmp -> new ProgramBuilder()
                .ldxdw(R2, R10, -400).stxdw(R1, 16, R2).ldxdw(R2, R10, -512).stxdw(R1, 24, R2)
                .mov64(R0, 2).exit().build("deepreader");
        assertThat(agree(deepWriter, 0, List.of(deepReader))).isEqualTo("r0=2 out=" + "00".repeat(16) + "5500000000000000" + "00".repeat(8));
    }

    @Test
    void onlyFromTheMainFrame() {
        assertThat(agree(TailCallTest::fromSubprogram, 0, List.of(TailCallTest::stackReader))).startsWith("HELPER_FAILED@fromsub:");
    }

    @Test
    void foreignTargetsAreRefused() {
        long out = NativeMemory.allocate(OUT);
        try (MapTable maps = MapTable.create(List.of(new MapDefinition("jmp", MapType.PROG_ARRAY, 4, 4, 4, 0)))) {
            NativeMemory.setMemory(out, OUT, (byte) 0);
            LoadOptions o = LoadOptions.defaults().withHelpers(BpfHelpers.registry(maps));
            try (Executable m = Jit.ENGINE.load(caller(maps.handle("jmp")), o);
                 Executable foreign = Both.INTERP.load(stackReader(0), o)) {
                ((ProgArrayMap) maps.map("jmp").orElseThrow()).set(0, foreign, 0);
                assertThat(Jit.ENGINE.canTailCallInto(foreign)).isFalse();
                assertThat(Jit.ENGINE.canTailCallInto(m)).isTrue();
                try {
                    m.run(RunContext.builder().arg(1, out).region(new MemoryRegion("out", out, OUT, true)).build());
                    throw new AssertionError("expected HELPER_FAILED");
                } catch (BpfRuntimeException e) {
                    assertThat(e.kind().name()).isEqualTo("HELPER_FAILED");
                    assertThat(e.getMessage()).contains("not a program loaded by the jit engine");
                }
            }
        } finally {
            NativeMemory.free(out);
        }
    }
}
