package dev.bpf4j.jvm;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.asm.ProgramBuilder;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapFlags;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.maps.ProgArrayMap;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.Limits;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.bpf4j.isa.Reg.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Helper calls, bpf-to-bpf calls, callbacks, tail calls, atomics and legacy packet loads: each
 * scenario runs in a fresh world on the interpreter, the JIT and the JVM engine, which must show the
 * same r0 or error (kind, pc, program), the same out block and the same maps.
 */
class CallsAndHelpersTest {
    static final List<MapDefinition> MAPS = List.of(
            new MapDefinition("arr", MapType.ARRAY, 4, 8, 4, 0),
            new MapDefinition("hash", MapType.HASH, 4, 8, 8, 0),
            new MapDefinition("jmp", MapType.PROG_ARRAY, 4, 4, 4, 0));

    @Test void mapHelpersOnArrayAndHash() {
        String o = World.agree(MAPS, w -> {
            ProgramBuilder b = new ProgramBuilder().mov64(R6, R1).mov64(R7, 0)
                    .label("loop")
                    .stxw(R10, -4, R7).mov64(R1, R7).mul64(R1, 7).stxdw(R10, -16, R1)
                    .lddw(R1, w.maps.handle("hash")).mov64(R2, R10).add64(R2, -4).mov64(R3, R10).add64(R3, -16).mov64(R4, 0)
                    .call(HelperIds.MAP_UPDATE_ELEM)
                    .lddw(R1, w.maps.handle("arr")).mov64(R2, R10).add64(R2, -4).mov64(R3, R10).add64(R3, -16).mov64(R4, 0)
                    .call(HelperIds.MAP_UPDATE_ELEM)
                    .ldxdw(R1, R6, 0).add64(R1, R0).stxdw(R6, 0, R1)
                    .add64(R7, 1).jlt(R7, 6, "loop")
                    .st(Opcodes.W, R10, -4, 3)
                    .lddw(R1, w.maps.handle("arr")).mov64(R2, R10).add64(R2, -4).call(HelperIds.MAP_LOOKUP_ELEM)
                    .jeq(R0, 0, "none").ldxdw(R1, R0, 0).stxdw(R6, 8, R1)
                    .label("none")
                    .st(Opcodes.W, R10, -4, 5)
                    .lddw(R1, w.maps.handle("hash")).mov64(R2, R10).add64(R2, -4).call(HelperIds.MAP_LOOKUP_ELEM)
                    .jeq(R0, 0, "none2").ldxdw(R1, R0, 0).stxdw(R6, 16, R1)
                    .label("none2")
                    .mov64(R0, 42).exit();
            return w.run(w.load(b.build("maps")), 1_000_000);
        });
        assertThat(o).startsWith("r0=42");
    }

    /** f(n) = n == 0 ? 1 : n * f(n - 1) as real bpf-to-bpf calls; too deep a chain is CALL_DEPTH_EXCEEDED at the call. */
    private static Program factorial(int n) {
        return new ProgramBuilder()
                .mov64(R6, R1).mov64(R1, n).callLocal("f").stxdw(R6, 0, R0).exit()
                .label("f")
                .mov64(R0, 1).jeq(R1, 0, "done")
                .stxdw(R10, -8, R1).sub64(R1, 1).callLocal("f")
                .ldxdw(R1, R10, -8).mul64(R0, R1)
                .label("done").exit()
                .build("fact");
    }

    @Test void bpfToBpfCallsAndTheirDepthLimit() {
        assertThat(World.agree(MAPS, w -> w.run(w.load(factorial(6)), 1000))).startsWith("r0=720");
        assertThat(World.agree(MAPS, w -> w.run(w.loadUnverified(factorial(7)), 1000))).startsWith("error=CALL_DEPTH_EXCEEDED pc 9");
        assertThat(World.agree(MAPS, w -> w.run(w.load(factorial(5)), 3))).startsWith("error=BUDGET_EXCEEDED pc 9");
    }

    /** bpf_loop(n, cb, out): cb adds i + 1 to out[0], stops when i == stopAt. */
    private static Program loop(long n, int stopAt) {
        ProgramBuilder main = new ProgramBuilder().mov64(R6, R1).lddw(R1, n);
        Funcs.func(main, R2, 0).mov64(R3, R6).mov64(R4, 0).call(HelperIds.LOOP).stxdw(R6, 8, R0).mov64(R0, 0).exit();
        ProgramBuilder cb = new ProgramBuilder()
                .ldxdw(R3, R2, 0).add64(R3, R1).add64(R3, 1).stxdw(R2, 0, R3)
                .mov64(R0, 0).jne(R1, stopAt, "out").mov64(R0, 1).label("out").exit();
        return Funcs.link("loop", main, cb);
    }

    @Test void bpfLoopCallbacksSpendTheBudget() {
        assertThat(World.agree(MAPS, w -> w.run(w.load(loop(10, 99)), 1000))).startsWith("r0=0");
        assertThat(World.agree(MAPS, w -> w.run(w.load(loop(10, 4)), 1000))).startsWith("r0=0");
        assertThat(World.agree(MAPS, w -> w.run(w.load(loop(50, 99)), 20))).startsWith("error=BUDGET_EXCEEDED");
    }

    @Test void forEachMapElemVisitsTheHash() {
        String o = World.agree(MAPS, w -> {
            for (int k = 0; k < 5; k++) w.maps.map("hash").orElseThrow().update(new byte[] {(byte) k, 0, 0, 0}, World.bytes(k * 11L), 0);
            ProgramBuilder main = new ProgramBuilder().mov64(R6, R1).lddw(R1, w.maps.handle("hash"));
            Funcs.func(main, R2, 0).mov64(R3, R6).mov64(R4, 0).call(HelperIds.FOR_EACH_MAP_ELEM).stxdw(R6, 8, R0).mov64(R0, 1).exit();
            // cb(map, key, value, ctx): ctx[0] += *value; *value += 1 (values are writable)
            ProgramBuilder cb = new ProgramBuilder()
                    .ldxdw(R5, R3, 0).ldxdw(R0, R4, 0).add64(R0, R5).stxdw(R4, 0, R0)
                    .add64(R5, 1).stxdw(R3, 0, R5).mov64(R0, 0).exit();
            return w.run(w.load(Funcs.link("each", main, cb)), 1000);
        });
        assertThat(o).startsWith("r0=1");
    }

    /** ctx[0]++; ctx[1] = ctx[1] * 10 + id; tail_call(ctx, jmp, index); falls through with 100 + id + r0. */
    private static Program hop(World w, String name, int id, long index) {
        return new ProgramBuilder()
                .mov64(R6, R1)
                .ldxdw(R2, R6, 0).add64(R2, 1).stxdw(R6, 0, R2)
                .ldxdw(R2, R6, 8).mul64(R2, 10).add64(R2, id).stxdw(R6, 8, R2)
                .mov64(R1, R6).lddw(R2, w.maps.handle("jmp")).lddw(R3, index)
                .call(HelperIds.TAIL_CALL)
                .add64(R0, 100 + id).exit()
                .build(name);
    }

    @Test void tailCallChainsAndTheLimitOf33() {
        String chain = World.agree(MAPS, w -> {
            ProgArrayMap jmp = (ProgArrayMap) w.maps.map("jmp").orElseThrow();
            Executable a = w.load(hop(w, "a", 1, 1));
            jmp.set(1, w.load(hop(w, "b", 2, 2)), MapFlags.BPF_ANY);
            jmp.set(2, w.load(hop(w, "c", 3, 3)), MapFlags.BPF_ANY);
            return w.run(a, 1000);
        });
        assertThat(chain).startsWith("r0=103");
        String self = World.agree(MAPS, w -> {
            Executable s = w.load(hop(w, "self", 1, 0));
            ((ProgArrayMap) w.maps.map("jmp").orElseThrow()).set(0, s, MapFlags.BPF_ANY);
            return w.run(s, 1000);
        });
        assertThat(self).startsWith("r0=101");
        assertThat(self).contains("out=" + "22" + "0".repeat(14)); // 1 + 33 entries
        assertThat(Limits.MAX_TAIL_CALLS).isEqualTo(33);
    }

    @Test void everyAtomicWithFetchXchgAndCmpxchg() {
        String o = World.agree(MAPS, w -> {
            ProgramBuilder b = new ProgramBuilder().mov64(R6, R1)
                    .st(Opcodes.DW, R6, 0, 100).st(Opcodes.DW, R6, 8, 0x0f0f).st(Opcodes.W, R6, 16, 77)
                    .mov64(R2, 5).atomic(Opcodes.DW, Opcodes.ADD, R6, 0, R2)
                    .mov64(R2, 9).atomic(Opcodes.DW, Opcodes.ADD | Opcodes.FETCH, R6, 0, R2).stxdw(R6, 24, R2)
                    .mov64(R3, 0xf0).atomic(Opcodes.DW, Opcodes.OR | Opcodes.FETCH, R6, 8, R3).stxdw(R6, 32, R3)
                    .mov64(R3, 0x3c).atomic(Opcodes.DW, Opcodes.AND, R6, 8, R3)
                    .mov64(R3, 0x55).atomic(Opcodes.DW, Opcodes.XOR | Opcodes.FETCH, R6, 8, R3).add64(R3, 1)
                    .mov64(R4, -1).atomic(Opcodes.W, Opcodes.ADD | Opcodes.FETCH, R6, 16, R4).stxdw(R6, 40, R4)
                    .mov64(R4, 1234).atomic(Opcodes.W, Opcodes.XCHG, R6, 16, R4).stxdw(R6, 48, R4)
                    .mov64(R0, 1234).mov64(R5, 9).atomic(Opcodes.W, Opcodes.CMPXCHG, R6, 16, R5).mov64(R7, R0)
                    .mov64(R0, 1).mov64(R5, 8).atomic(Opcodes.DW, Opcodes.CMPXCHG, R6, 0, R5).add64(R0, R7).add64(R0, R3)
                    .exit();
            return w.run(w.load(b.build("atomics")), 1000);
        });
        assertThat(o).startsWith("r0=");
        String misaligned = World.agree(MAPS, w -> w.run(w.load(new ProgramBuilder().mov64(R2, 1)
                .atomic(Opcodes.DW, Opcodes.ADD, R1, 4, R2).mov64(R0, 0).exit().build("mis")), 1000));
        assertThat(misaligned).startsWith("error=MISALIGNED_ATOMIC pc 1");
    }

    @Test void callxByIdAndAnUnknownId() {
        String o = World.agree(MAPS, w -> w.run(w.load(new ProgramBuilder().mov64(R6, R1)
                .mov64(R8, HelperIds.KTIME_GET_NS).callx(R8).mov64(R7, R0)
                .mov64(R8, HelperIds.KTIME_GET_NS).callx(R8).sub64(R0, R7).jsge(R0, 0, "ok").mov64(R0, -1).exit()
                .label("ok").mov64(R0, 5).exit().build("callx")), 1000));
        assertThat(o).startsWith("r0=5");
    }
}
