package dev.bpf4j.jit;

import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.isa.Reg;
import dev.bpf4j.asm.ProgramBuilder;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import static dev.bpf4j.isa.Reg.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Callbacks (HelperCall.callSubprogram through bpf_loop and bpf_for_each_map_elem) on the JIT
 * against the interpreter: same r0, error kind, program and pc, same out memory and map contents.
 */
class CallbackTest {
    static final int OUT = 16;
    static final int EXIT_HELPER = 200;

    /** {@code lddw reg, function k}, resolved by {@link #link}. */
    static ProgramBuilder func(ProgramBuilder b, Reg reg, int k) { return b.ldPseudo(reg, Opcodes.PSEUDO_FUNC, k, 0); }

    /** Main then each function, with function-address lddw's pointing at their function (as clang lays them out). */
    static Program link(String name, ProgramBuilder main, ProgramBuilder... functions) {
        List<Insn> out = new ArrayList<>(main.build(name).insns());
        int[] start = new int[functions.length];
        for (int k = 0; k < functions.length; k++) {
            start[k] = out.size();
            out.addAll(functions[k].build(name).insns());
        }
        for (int pc = 0; pc < out.size(); pc++) {
            Insn i = out.get(pc);
            if (i.opcode() == Opcodes.LDDW && i.src() == Opcodes.PSEUDO_FUNC) {
                out.set(pc, new Insn(i.opcode(), i.dst(), i.src(), i.off(), start[i.imm()] - (pc + 1)));
            }
            if (i.opcode() == Opcodes.LDDW) pc++;
        }
        return new Program(name, out);
    }

    String run(Engine engine, Function<MapTable, Program> prog, long budget) {
        long out = NativeMemory.allocate(OUT);
        try (MapTable maps = MapTable.create(List.of(new MapDefinition("arr", MapType.ARRAY, 4, 8, 4, 0),
                new MapDefinition("hash", MapType.HASH, 4, 8, 8, 0)))) {
            NativeMemory.setMemory(out, OUT, (byte) 0);
            HelperRegistry h = BpfHelpers.registry(maps).toBuilder()
                    .add(EXIT_HELPER, "exit_if_3", (call, r1, r2, r3, r4, r5) -> {
                        if (r1 == 3) call.exit(0xe0 + r1);
                        return r1;
                    }).build();
            LoadOptions o = LoadOptions.defaults().withHelpers(h);
            StringBuilder s = new StringBuilder();
            try (Executable x = engine.load(prog.apply(maps), o)) {
                RunContext.Builder ctx = RunContext.builder().arg(1, out).region(new MemoryRegion("out", out, OUT, true)).budget(budget);
                maps.regions().forEach(ctx::region);
                long r0 = x.run(ctx.build());
                s.append("r0=").append(Long.toHexString(r0));
            } catch (BpfRuntimeException e) {
                s.append(e.kind()).append('@').append(e.program()).append(':').append(e.pc());
            }
            s.append(" out=");
            for (byte b : NativeMemory.read(out, OUT)) s.append(String.format("%02x", b & 0xff));
            s.append(" arr=");
            dev.bpf4j.maps.BpfMap arr = maps.map("arr").orElseThrow();
            for (int k = 0; k < 4; k++) {
                byte[] key = java.nio.ByteBuffer.allocate(4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(k).array();
                s.append(java.util.HexFormat.of().formatHex(arr.lookup(key).orElseThrow())).append(',');
            }
            return s.toString();
        } finally {
            NativeMemory.free(out);
        }
    }

    String agree(Function<MapTable, Program> prog, long budget) {
        String want = run(Both.INTERP, prog, budget);
        assertThat(run(Jit.ENGINE, prog, budget)).isEqualTo(want);
        return want;
    }

    String agree(Function<MapTable, Program> prog) { return agree(prog, 1_000_000); }

    /** bpf_loop(n, cb, out, flags); out[8] = its result. cb: out[0] += i + 1; returns 1 (stop) at i == stopAt. */
    static Program loop(long n, int stopAt, int flags) {
        ProgramBuilder main = new ProgramBuilder().mov64(R6, R1).lddw(R1, n);
        func(main, R2, 0).mov64(R3, R6).mov64(R4, flags).call(HelperIds.LOOP).stxdw(R6, 8, R0).mov64(R0, 0).exit();
        ProgramBuilder cb = new ProgramBuilder()
                .ldxdw(R3, R2, 0).add64(R3, R1).add64(R3, 1).stxdw(R2, 0, R3)
                .mov64(R0, 0).jne(R1, stopAt, "out").mov64(R0, 1).label("out").exit();
        return link("loop", main, cb);
    }

    @Test
    void bpfLoopAgrees() {
        assertThat(agree(m -> loop(5, -1, 0))).startsWith("r0=0 out=0f000000000000000500000000000000 ");
        agree(m -> loop(0, -1, 0));
        agree(m -> loop(10, 3, 0));
        agree(m -> loop(4, -1, 1));            // flags: EINVAL
        agree(m -> loop(1L << 24, -1, 0));     // over the limit: E2BIG
        agree(m -> loop(100, -1, 0), 40);      // budget runs out in a callback call
    }

    /** The callback writes through a pointer into the caller's frame: r0 = 5 + 0 + 1 + 2. */
    @Test
    void callbacksReachTheLiveFramesAndOnlyThose() {
        assertThat(agree(m -> {
            ProgramBuilder main = new ProgramBuilder().st(Opcodes.DW, R10, -8, 5).mov64(R1, 3);
            func(main, R2, 0).mov64(R3, R10).add64(R3, -8).mov64(R4, 0).call(HelperIds.LOOP).ldxdw(R0, R10, -8).exit();
            ProgramBuilder cb = new ProgramBuilder().ldxdw(R3, R2, 0).add64(R3, R1).stxdw(R2, 0, R3).mov64(R0, 0).exit();
            return link("frames", main, cb);
        })).startsWith("r0=8 ");
        // below the callback's own frame is not live: OUT_OF_BOUNDS inside the callback
        assertThat(agree(m -> {
            ProgramBuilder main = new ProgramBuilder().mov64(R1, 3);
            func(main, R2, 0).mov64(R3, 0).mov64(R4, 0).call(HelperIds.LOOP).exit();
            ProgramBuilder cb = new ProgramBuilder().mov64(R3, R10).add64(R3, -600).ldxdw(R0, R3, 0).exit();
            return link("below", main, cb);
        })).startsWith("OUT_OF_BOUNDS@below:");
    }

    /** A callback that loops on itself: the 9th frame is CALL_DEPTH_EXCEEDED at the bpf_loop call. */
    @Test
    void nestedCallbacksHitTheFrameLimit() {
        assertThat(agree(m -> {
            ProgramBuilder main = new ProgramBuilder().mov64(R1, 1);
            func(main, R2, 0).mov64(R3, 0).mov64(R4, 0).call(HelperIds.LOOP).exit();
            ProgramBuilder cb = new ProgramBuilder().mov64(R1, 1);
            func(cb, R2, 0).mov64(R3, 0).mov64(R4, 0).call(HelperIds.LOOP).exit();
            return link("deep", main, cb);
        })).startsWith("CALL_DEPTH_EXCEEDED@deep:");
    }

    /** A helper ending the run from inside a callback ends the whole run with its r0. */
    @Test
    void exitInsideACallback() {
        assertThat(agree(m -> {
            ProgramBuilder main = new ProgramBuilder().mov64(R6, R1).mov64(R1, 10);
            func(main, R2, 0).mov64(R3, R6).mov64(R4, 0).call(HelperIds.LOOP).mov64(R0, 7).exit();
            ProgramBuilder cb = new ProgramBuilder().mov64(R6, R2).call(EXIT_HELPER).stxdw(R6, 0, R0).mov64(R0, 0).exit();
            return link("exiting", main, cb);
        })).startsWith("r0=e3 out=0200");
    }

    /**
     * bpf_for_each_map_elem(arr, cb, out, 0): cb(map, key, value, ctx) reads the key from the
     * helper's scratch buffer, doubles value + key, adds it to out[0]; out[8] = the helper's result.
     */
    static Program forEach(MapTable maps, ProgramBuilder cb) {
        ProgramBuilder main = new ProgramBuilder().mov64(R6, R1).lddw(R1, maps.handle("arr"));
        func(main, R2, 0).mov64(R3, R6).mov64(R4, 0).call(HelperIds.FOR_EACH_MAP_ELEM).stxdw(R6, 8, R0).mov64(R0, 0).exit();
        return link("foreach", main, cb);
    }

    static ProgramBuilder doubler() {
        return new ProgramBuilder()
                .ldxw(R5, R2, 0).ldxdw(R0, R3, 0).add64(R0, R5).add64(R0, 1).mul64(R0, 2).stxdw(R3, 0, R0)
                .ldxdw(R1, R4, 0).add64(R1, R0).stxdw(R4, 0, R1).mov64(R0, 0).exit();
    }

    @Test
    void forEachMapElemReadsTheKeyFromScratchAndWritesValues() {
        String r = agree(m -> forEach(m, doubler()));
        assertThat(r).contains("arr=0200000000000000,0400000000000000,0600000000000000,0800000000000000,");
        // the key buffer is read-only
        assertThat(agree(m -> forEach(m, new ProgramBuilder().st(Opcodes.W, R2, 0, 7).mov64(R0, 0).exit())))
                .startsWith("OUT_OF_BOUNDS@foreach:");
        // and dies with the helper call: main reads it afterwards through a pointer the callback saved
        assertThat(agree(m -> {
            ProgramBuilder main = new ProgramBuilder().mov64(R6, R1).lddw(R1, m.handle("arr"));
            func(main, R2, 0).mov64(R3, R6).mov64(R4, 0).call(HelperIds.FOR_EACH_MAP_ELEM)
                    .ldxdw(R2, R6, 0).st(Opcodes.DW, R6, 0, 0).ldxw(R0, R2, 0).exit(); // addresses differ between engines
            return link("stale", main, new ProgramBuilder().stxdw(R4, 0, R2).mov64(R0, 1).exit());
        })).startsWith("OUT_OF_BOUNDS@stale:");
        // reads that straddle the buffer's end fail too
        assertThat(agree(m -> forEach(m, new ProgramBuilder().ldxdw(R0, R2, 508).mov64(R0, 0).exit())))
                .startsWith("OUT_OF_BOUNDS@foreach:");
        assertThat(agree(m -> forEach(m, new ProgramBuilder().ldxdw(R0, R2, 504).mov64(R0, 0).exit())))
                .startsWith("r0=0 ");
    }

    /** Over a hash map filled from Java: cb adds key * 1000 + value to out[0] and stops at key 3. */
    @Test
    void forEachOverAHashMap() {
        String r = agree(m -> {
            dev.bpf4j.maps.BpfMap hash = m.map("hash").orElseThrow();
            for (int k = 1; k <= 5; k++) {
                byte[] key = java.nio.ByteBuffer.allocate(4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(k).array();
                byte[] value = java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(k * 11L).array();
                hash.update(key, value, 0);
            }
            ProgramBuilder main = new ProgramBuilder().mov64(R6, R1).lddw(R1, m.handle("hash"));
            func(main, R2, 0).mov64(R3, R6).mov64(R4, 0).call(HelperIds.FOR_EACH_MAP_ELEM).stxdw(R6, 8, R0).mov64(R0, 0).exit();
            ProgramBuilder cb = new ProgramBuilder()
                    .ldxw(R5, R2, 0).mov64(R0, R5).mul64(R0, 1000).ldxdw(R1, R3, 0).add64(R0, R1)
                    .ldxdw(R1, R4, 0).add64(R1, R0).stxdw(R4, 0, R1)
                    .mov64(R0, 0).jne(R5, 3, "go").mov64(R0, 1).label("go").exit();
            return link("hashwalk", main, cb);
        });
        assertThat(r).startsWith("r0=0 ");
    }

    @Test
    void functionAddressesOutsideTheProgramAreRefusedAtLoad() {
        Program outside = new Program("far", List.of(new Insn(Opcodes.LDDW, 2, Opcodes.PSEUDO_FUNC, 0, 40), new Insn(0, 0, 0, 0, 0), I.exit()));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Jit.ENGINE.load(outside, LoadOptions.defaults()))
                .isInstanceOf(dev.bpf4j.runtime.BpfLoadException.class).hasMessageContaining("pc 0").hasMessageContaining("outside the program");
        Program secondSlot = new Program("mid", List.of(new Insn(Opcodes.LDDW, 2, Opcodes.PSEUDO_FUNC, 0, 0), new Insn(0, 0, 0, 0, 0), I.exit()));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Jit.ENGINE.load(secondSlot, LoadOptions.defaults()))
                .isInstanceOf(dev.bpf4j.runtime.BpfLoadException.class).hasMessageContaining("second slot");
    }

    @Test
    void badHandlesAreBadArguments() {
        assertThat(agree(m -> I.prog("badcb", I.mov64(1, 2), I.lddw(2, 0x1234), I.mov64(3, 0), I.mov64(4, 0),
                I.call(HelperIds.LOOP), I.exit()))).startsWith("BAD_HELPER_ARGUMENT@badcb:5");
    }
}
