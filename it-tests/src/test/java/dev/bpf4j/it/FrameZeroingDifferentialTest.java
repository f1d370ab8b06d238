package dev.bpf4j.it;

import dev.bpf4j.api.Engines;
import dev.bpf4j.api.MapDump;
import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.asm.ProgramBuilder;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.bpf4j.isa.Reg.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Stack bytes a program never wrote read as zero on both engines also where the engines zero only
 * part of a frame: a frame pointer passed to a map helper ({@code r2 = r10; r2 += -32; call}) lets
 * the helper read only at and above it ({@code StackUse.bytesToZero}), so a function zeroes only
 * that far. Each program calls one subprogram twice from main: the first call fills its frame with
 * 0x01 bytes, the second passes never-written bytes of the same frame (on the JIT the same native
 * stack bytes, with nothing in between) to the helper. A byte left unzeroed shows up as a key of
 * 0x01010101 (no element: NULL, r0 = 1000) or as 0x01 bytes written into the map.
 */
class FrameZeroingDifferentialTest {
    @BeforeAll
    static void bothEngines() {
        Assumptions.assumeTrue(Engines.available().stream().anyMatch(e -> e.name().equals("jit")), "no JIT on this platform");
    }

    /** main: f(1); return f(0). f(1) stores 0x0101010101010101 in every 8 bytes of its frame and returns 0. */
    static ProgramBuilder twoCalls() {
        ProgramBuilder b = new ProgramBuilder().mov64(R1, 1).callLocal("f").mov64(R1, 0).callLocal("f").exit()
                .label("f").jeq(R1, 0, "read").lddw(R1, 0x0101_0101_0101_0101L);
        for (int off = -8; off >= -512; off -= 8) b.stxdw(R10, off, R1);
        return b.mov64(R0, 0).exit().label("read");
    }

    /** f(0): v = lookup(map, r10 - 32), a key never written in this call (0: element 0 holds 7); NULL: 1000; else *v. */
    static Program lookupUnwritten(long map) {
        return twoCalls().mov64(R2, R10).add64(R2, -32).lddw(R1, map).call(HelperIds.MAP_LOOKUP_ELEM)
                .jeq(R0, 0, "null").ldxdw(R0, R0, 0).exit()
                .label("null").mov64(R0, 1000).exit().build("lookup_unwritten");
    }

    /** f(0): update(map, key = [r10 - 4] = 1, value = r10 - 48 (never written in this call), 0): element 1 becomes zero. */
    static Program updateUnwritten(long map) {
        return twoCalls().st(dev.bpf4j.isa.Opcodes.W, R10, -4, 1)
                .mov64(R2, R10).add64(R2, -4).mov64(R3, R10).add64(R3, -48).mov64(R4, 0).lddw(R1, map)
                .call(HelperIds.MAP_UPDATE_ELEM).exit().build("update_unwritten");
    }

    record Outcome(List<Long> r0, String map) {}

    static Outcome run(Engine engine, java.util.function.LongFunction<Program> reader) {
        try (MapTable maps = MapTable.create(List.of(new MapDefinition("a", MapType.ARRAY, 4, 8, 4, 0)))) {
            BpfMap a = maps.map(0);
            for (int k = 0; k < 4; k++) a.update(new byte[]{(byte) k, 0, 0, 0}, new byte[]{(byte) (7 + k), 0, 0, 0, 0, 0, 0, 0}, 0);
            LoadOptions o = LoadOptions.defaults().withHelpers(BpfHelpers.registry(maps));
            RunContext.Builder c = RunContext.builder();
            a.regions().forEach(c::region);
            RunContext context = c.build();
            List<Long> r0 = new java.util.ArrayList<>();
            try (Executable r = engine.load(reader.apply(maps.handle(0)), o)) {
                for (int i = 0; i < 3; i++) r0.add(r.run(context));
            }
            return new Outcome(r0, MapDump.json(a));
        }
    }

    static Outcome agree(java.util.function.LongFunction<Program> reader) {
        Outcome interp = run(Engines.byName("interp"), reader), jit = run(Engines.byName("jit"), reader);
        assertThat(jit).isEqualTo(interp);
        return interp;
    }

    @Test
    void aKeyNeverWrittenReadsZero() {
        assertThat(agree(FrameZeroingDifferentialTest::lookupUnwritten).r0()).containsOnly(7L);
    }

    @Test
    void aValueNeverWrittenIsStoredAsZeros() {
        Outcome o = agree(FrameZeroingDifferentialTest::updateUnwritten);
        assertThat(o.r0()).containsOnly(0L);
        assertThat(o.map()).contains("{\"key\": [\"0x01\", \"0x00\", \"0x00\", \"0x00\"], \"value\": [\"0x00\", \"0x00\", \"0x00\", \"0x00\", "
                + "\"0x00\", \"0x00\", \"0x00\", \"0x00\"]}");
    }
}
