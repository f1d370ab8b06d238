package dev.bpf4j.jit;

import dev.bpf4j.jit.compiler.CompiledProgram;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.jit.I.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Packet accesses of kernel-style XDP programs (entry r1 = {@code struct xdp_md}, packet pointers
 * loaded from its u32 data/data_end) that the guarded copy leaves unchecked (RegionProof's ctx
 * form), and the ones it must keep. Each program runs on both engines over {@link CtxRuns}' shapes,
 * including ones the entry guard must refuse, and must give the same r0 or error kind, pc and
 * address, and the same memory.
 */
class CtxProofTest {
    private static final LoadOptions OPTIONS = CtxRuns.OPTIONS;
    /** Helper 1000 (a user helper bpf4j does not know moves the packet, unlike bpf_xdp_adjust_head) moves the ctx's data and data_end 60 bytes on (as bpf_xdp_adjust_head moves data). */
    private static final LoadOptions MOVING = OPTIONS.withHelpers(HelperRegistry.builder().add(1000, "move", (call, a, b, c, d, e) -> {
        NativeMemory.putInt(a, NativeMemory.getInt(a) + 60);
        NativeMemory.putInt(a + 4, NativeMemory.getInt(a + 4) + 60);
        return 0;
    }).build());
    private CtxRuns runs;

    @BeforeEach void alloc() { runs = new CtxRuns(); }

    @AfterEach void free() { runs.close(); }

    private static CompiledProgram compiled(Program p, LoadOptions o) { return Jit.LOADER.compile(p, o); }

    private static int[] guarded(Program p) { return compiled(p, OPTIONS).proofs().guardedPcs(); }

    /** r2 = ctx->data_end; r1 = ctx->data; r3 = data + n; if r3 REL r2 goto out; r0 = byte at data + at; exit; out: r0 = 7. */
    private static Program tested(String name, int rel, int n, int at) {
        return prog(name, ldx(W, 2, 1, 4), ldx(W, 1, 1, 0), mov64r(3, 1), alu64(ADD, 3, n),
                jmpr(rel, 3, 2, 2), ldx(B, 0, 1, at), exit(), mov64(0, 7), exit());
    }

    @Test
    void theXdpTestAgainstDataEndProvesTheBytesBelowIt() {
        Program p = tested("xdp", JGT, 14, 13);
        assertThat(guarded(p)).as("both ctx fields and the packet byte").containsExactly(0, 1, 5);
        assertThat(compiled(p, OPTIONS).proofs().uncheckedPcs()).as("the checked body keeps every check").isEmpty();
        List<String> o = runs.same(p);
        assertThat(o).contains("r0=7", "r0=6c"); // byte 13 of the packet
        // len 14 at packet + 60 passes the program's test but not the guard: checked, fails
        assertThat(o).contains("OUT_OF_BOUNDS@5 addr=base+73");
        // a ctx region too short for data_end: the guard refuses, the load fails like the interpreter's
        assertThat(o).contains("OUT_OF_BOUNDS@0 addr=base+-124");
        assertThat(compiled(p, LoadOptions.defaults()).proofs().guardedOffset()).as("no packet context: no copy").isEqualTo(-1);
    }

    @Test
    void theCopyTakesTheFieldValuesTheGuardChecked() {
        // r2 = ctx->data_end, r1 = ctx->data: the checked body reads the ctx, the copy the env block's
        // CTX_DATA_END (r12 + 0x88) and CTX_DATA (r12 + 0x80), which the guard filled: another thread
        // changing the ctx after the guard cannot move a proven access
        CompiledProgram c = compiled(tested("xdp", JGT, 14, 13), OPTIONS);
        List<String> body = new java.util.ArrayList<>(), copy = new java.util.ArrayList<>();
        for (X86Listing.Insn i : X86Listing.disassemble(c.code())) {
            if (i.text().startsWith("pop")) break; // main's epilogue: the stubs follow
            (i.offset() >= c.proofs().guardedOffset() ? copy : body).add(i.text());
        }
        assertThat(body).as("the guard").contains("mov    (%rdi),%esi", "mov    0x4(%rdi),%eax", "mov    %rsi,0x80(%r12)", "mov    %rax,0x88(%r12)");
        assertThat(copy).contains("mov    0x88(%r12),%rsi", "mov    0x80(%r12),%rdi")
                .noneMatch(t -> t.startsWith("mov    (%rdi)") || t.startsWith("mov    0x4(%rdi)"));
    }

    @Test
    void offByOneWrongDirectionSignedAnd32BitComparesKeepTheirChecks() {
        for (Program p : new Program[]{tested("off1", JGT, 13, 13), tested("wrong", JLT, 14, 13), tested("signed", JSGT, 14, 13),
                prog("jmp32", ldx(W, 2, 1, 4), ldx(W, 1, 1, 0), mov64r(3, 1), alu64(ADD, 3, 14),
                        jmp32r(JGT, 3, 2, 2), ldx(B, 0, 1, 13), exit(), mov64(0, 7), exit())}) {
            assertThat(guarded(p)).as(p.name()).containsExactly(0, 1);
            runs.same(p);
        }
        assertThat(runs.same(tested("off1", JGT, 13, 13))).contains("OUT_OF_BOUNDS@5 addr=base+64");
    }

    @Test
    void dataEndMinusDataIsTheLength() {
        Program p = prog("len", ldx(W, 2, 1, 4), ldx(W, 1, 1, 0), mov64r(3, 2), alu64r(SUB, 3, 1),
                jmp(JLT, 3, 14, 2), ldx(B, 0, 1, 13), exit(), mov64(0, 7), exit());
        assertThat(guarded(p)).containsExactly(0, 1, 5);
        runs.same(p);
        Program wide = prog("wide", ldx(W, 2, 1, 4), ldx(DW, 1, 1, 0), mov64r(3, 1), alu64(ADD, 3, 14),
                jmpr(JGT, 3, 2, 2), ldx(B, 0, 1, 13), exit(), mov64(0, 7), exit());
        assertThat(guarded(wide)).as("an 8-byte read of the fields is no packet pointer").containsExactly(0, 1);
        runs.same(wide);
        Program moved = prog("moved", alu64(ADD, 1, 4), ldx(W, 2, 1, 0), ldx(W, 1, 1, -4), mov64r(3, 1), alu64(ADD, 3, 14),
                jmpr(JGT, 3, 2, 2), ldx(B, 0, 1, 13), exit(), mov64(0, 7), exit());
        assertThat(guarded(moved)).as("the fields found through a moved ctx pointer").containsExactly(1, 2, 6);
        runs.same(moved);
        Program swapped = prog("swapped", ldx(W, 2, 1, 0), ldx(W, 1, 1, 4), mov64r(3, 1), alu64(ADD, 3, 14),
                jmpr(JGT, 3, 2, 2), ldx(B, 0, 1, 13), exit(), mov64(0, 7), exit());
        assertThat(guarded(swapped)).as("data_end used as data").containsExactly(0, 1);
        runs.same(swapped);
    }

    @Test
    void ctxLoadsAreProvenOnlyInsideTheFieldsTheGuardChecks() {
        // ingress_ifindex (offset 12) lies past data_end's field: it keeps its check
        Program p = prog("ifindex", ldx(W, 2, 1, 4), ldx(W, 3, 1, 12), ldx(W, 1, 1, 0), mov64r(4, 1), alu64(ADD, 4, 14),
                jmpr(JGT, 4, 2, 3), ldx(B, 0, 1, 13), alu64r(ADD, 0, 3), exit(), mov64(0, 7), exit());
        assertThat(guarded(p)).containsExactly(0, 2, 6);
        assertThat(runs.same(p)).contains("OUT_OF_BOUNDS@1 addr=base+-116");
        Program sx = prog("sx", ldx(W, 2, 1, 4), ldxsx(W, 1, 1, 0), mov64r(3, 1), alu64(ADD, 3, 14),
                jmpr(JGT, 3, 2, 2), ldx(B, 0, 1, 13), exit(), mov64(0, 7), exit());
        assertThat(guarded(sx)).as("a sign-extended data is no pointer").containsExactly(0, 1);
        runs.same(sx);
    }

    @Test
    void fieldsReadAfterAHelperCallAreUnknown() {
        Program after = prog("after", mov64r(6, 1), call(1000), ldx(W, 2, 6, 4), ldx(W, 1, 6, 0), mov64r(3, 1), alu64(ADD, 3, 14),
                jmpr(JGT, 3, 2, 2), ldx(B, 0, 1, 13), exit(), mov64(0, 7), exit());
        assertThat(compiled(after, MOVING).proofs().guardedPcs()).as("the ctx loads only").containsExactly(2, 3);
        List<String> o = runs.same(after, false, MOVING);
        assertThat(o).as("the helper moved the packet past its region").contains("OUT_OF_BOUNDS@7 addr=base+73");
        // values loaded before the call keep what the guard checked
        Program before = prog("before", ldx(W, 2, 1, 4), ldx(W, 1, 1, 0), mov64r(6, 1), mov64r(7, 2), call(1000),
                mov64r(3, 6), alu64(ADD, 3, 14), jmpr(JGT, 3, 7, 2), ldx(B, 0, 6, 13), exit(), mov64(0, 7), exit());
        assertThat(compiled(before, MOVING).proofs().guardedPcs()).containsExactly(0, 1, 8);
        runs.same(before, false, MOVING);
    }

    @Test
    void fieldsReadAfterAStoreAreUnknown() {
        // data_end + 100 stored at data + 44, which is the ctx's data_end when the ctx lies in the packet
        Program p = prog("store", mov64r(6, 1), ldx(W, 2, 1, 4), ldx(W, 1, 1, 0), mov64r(3, 1), alu64(ADD, 3, 48),
                jmpr(JGT, 3, 2, 9), mov64r(4, 2), alu64(ADD, 4, 100), stx(W, 1, 4, 44), ldx(W, 2, 6, 4),
                mov64r(3, 1), alu64(ADD, 3, 120), jmpr(JGT, 3, 2, 2), ldx(B, 0, 1, 119), exit(), mov64(0, 7), exit());
        assertThat(guarded(p)).containsExactly(1, 2, 8, 9);
        List<String> o = runs.same(p, true);
        assertThat(o).as("the ctx in the packet: its data_end moved past the region").contains("OUT_OF_BOUNDS@13 addr=base+119");
        assertThat(runs.same(p, false)).as("a read-only packet: the guard refuses, the store fails").contains("OUT_OF_BOUNDS@8 addr=base+44");
    }

    @Test
    void storesThroughProvenPointersNeedAWritablePacket() {
        Program p = prog("st", ldx(W, 2, 1, 4), ldx(W, 1, 1, 0), mov64r(3, 1), alu64(ADD, 3, 14),
                jmpr(JGT, 3, 2, 3), st(B, 1, 13, 0x5a), mov64(0, 1), exit(), mov64(0, 7), exit());
        assertThat(guarded(p)).containsExactly(0, 1, 5);
        assertThat(runs.same(p, false)).contains("OUT_OF_BOUNDS@5 addr=base+13");
        assertThat(runs.same(p, true)).contains("r0=1");
    }

    @Test
    void aVariableOffsetAfterTheCtxLoads() {
        // ihl = (byte 0 & 15) * 4, at least 20; if data + ihl + 8 > data_end goto out; r0 = byte at data + ihl + 7
        Program p = prog("ihl", ldx(W, 2, 1, 4), ldx(W, 1, 1, 0), mov64r(3, 1), alu64(ADD, 3, 1), jmpr(JGT, 3, 2, 11),
                ldx(B, 5, 1, 0), alu32(AND, 5, 15), alu32(LSH, 5, 2), jmp32(JLT, 5, 20, 7),
                mov64r(3, 1), alu64r(ADD, 3, 5), mov64r(4, 3), alu64(ADD, 4, 8), jmpr(JGT, 4, 2, 2),
                ldx(B, 0, 3, 7), exit(), mov64(0, 7), exit());
        assertThat(guarded(p)).containsExactly(0, 1, 5, 14);
        assertThat(runs.same(p)).contains("r0=7");
    }
}
