package dev.bpf4j.bench;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.asm.ProgramBuilder;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.HelperRegistry;

import static dev.bpf4j.isa.Opcodes.DW;
import static dev.bpf4j.isa.Opcodes.W;
import static dev.bpf4j.isa.Reg.R0;
import static dev.bpf4j.isa.Reg.R1;
import static dev.bpf4j.isa.Reg.R10;
import static dev.bpf4j.isa.Reg.R2;
import static dev.bpf4j.isa.Reg.R3;
import static dev.bpf4j.isa.Reg.R4;

/** The tiny programs of the call-overhead and map benchmarks. */
public final class CallPrograms {
    private CallPrograms() {}

    /** Helper id of {@link #IDENTITY_HELPERS}: returns its r1. */
    public static final int IDENTITY_ID = 1;

    /** One trivial Java helper, {@code bench_identity(r1) = r1}. */
    public static final HelperRegistry IDENTITY_HELPERS = HelperRegistry.builder()
            .add(IDENTITY_ID, "bench_identity", (call, r1, r2, r3, r4, r5) -> r1)
            .build();

    /** {@code r0 = 0; exit}: the cost of entering and leaving an engine. */
    public static Program empty() {
        return new ProgramBuilder().mov64(R0, 0).exit().build("empty");
    }

    /**
     * A per-packet counter as XDP programs keep one: {@code key = 2; v = bpf_map_lookup_elem(map, &key);
     * if (!v) return 0; return ++*v;} on an ARRAY map whose handle is {@code map}.
     */
    public static Program arrayCounter(long map) {
        return new ProgramBuilder().st(W, R10, -4, 2).mov64(R2, R10).add64(R2, -4).lddw(R1, map).call(HelperIds.MAP_LOOKUP_ELEM)
                .jeq(R0, 0, "out").ldxdw(R1, R0, 0).add64(R1, 1).stxdw(R0, 0, R1).mov64(R0, R1)
                .label("out").exit().build("array_counter");
    }

    /** The value {@link #arrayUpdate} stores. */
    public static final int UPDATE_VALUE = 7;

    /**
     * A value written as programs keep a setting or a last-seen record in an array: {@code key = 2;
     * value = UPDATE_VALUE; return bpf_map_update_elem(map, &key, &value, BPF_ANY);} on an ARRAY map
     * of 8-byte values whose handle is {@code map}.
     */
    public static Program arrayUpdate(long map) {
        return new ProgramBuilder().st(W, R10, -4, 2).st(DW, R10, -16, UPDATE_VALUE).mov64(R2, R10).add64(R2, -4)
                .mov64(R3, R10).add64(R3, -16).mov64(R4, 0).lddw(R1, map).call(HelperIds.MAP_UPDATE_ELEM)
                .exit().build("array_update");
    }

    /** The 16-byte key {@link #hashCounter} looks up: a flow's addresses, ports and protocol, as {@code xdp_flows} keys it. */
    public static final int[] FLOW_KEY = {0x0100000a, 0x0200000a, 0xbb013930, 6};

    /** The same counter in a HASH map with 16-byte keys: {@link #FLOW_KEY} on the stack, lookup, {@code ++*value}. */
    public static Program hashCounter(long map) {
        ProgramBuilder b = new ProgramBuilder();
        for (int i = 0; i < FLOW_KEY.length; i++) b.st(W, R10, -16 + 4 * i, FLOW_KEY[i]);
        return b.mov64(R2, R10).add64(R2, -16).lddw(R1, map).call(HelperIds.MAP_LOOKUP_ELEM)
                .jeq(R0, 0, "out").ldxdw(R1, R0, 0).add64(R1, 1).stxdw(R0, 0, R1).mov64(R0, R1)
                .label("out").exit().build("hash_counter");
    }

    /** {@code call <helper id>; exit}: the empty program's cost plus one call of a standard helper. */
    public static Program standardOnce(int id, String name) {
        return new ProgramBuilder().call(id).exit().build(name + "_once");
    }

    /** {@code call bench_identity; exit}: the empty program's cost plus one Java helper call. */
    public static Program helperOnce() {
        return new ProgramBuilder().call(IDENTITY_ID).exit().build("helper_once");
    }
}
