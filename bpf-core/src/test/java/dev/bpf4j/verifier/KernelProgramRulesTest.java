package dev.bpf4j.verifier;

import dev.bpf4j.asm.Assembler;
import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.maps.MapTable;
import java.util.List;
import dev.bpf4j.object.AttachType;
import dev.bpf4j.object.ProgramType;
import dev.bpf4j.runtime.ContextRules;
import dev.bpf4j.runtime.EntryRegisters;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.PacketContext;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Linux's load-time rules that kernel program types follow in bpf4j (the conformance suites' memory-block
 * programs keep the RFC's: dead code and run-time checked memory): check_cfg's dead code, check_packet_access
 * at fixed offsets, no atomics on packets. Linux's verdicts on the same shapes are compared in bpf-kernel's
 * PacketAccessOracleTest and the fuzzer's LinuxOnlyRejectsTest.
 */
class KernelProgramRulesTest {
    private static final LoadOptions TC = LoadOptions.defaults().withEntry(EntryRegisters.CONTEXT)
            .withPacketContext(PacketContext.SK_BUFF).withCtxRules(ContextRules.TC);
    private static final LoadOptions BLOCK = LoadOptions.defaults().withEntry(EntryRegisters.MEMORY_BLOCK);

    private static void refused(LoadOptions o, String asm, int pc, String reason) {
        assertThatThrownBy(() -> Validator.validate(Assembler.assembleProgram("k", asm), o))
                .isInstanceOfSatisfying(VerifierException.class, e -> {
                    assertThat(e.pc()).isEqualTo(pc);
                    assertThat(e.reason()).startsWith(reason);
                });
    }

    private static void accepted(LoadOptions o, String asm) { Validator.validate(Assembler.assembleProgram("k", asm), o); }

    @Test void deadCodeIsRefusedInKernelProgramTypesOnly() {
        String dead = "mov %r0, 0\nja +1\nmov %r0, 1\nexit";
        refused(TC, dead, 2, "unreachable insn 2");
        accepted(BLOCK, dead);
        // a ctx load naming no program type (the engines' own tests) keeps dead code and run-time checked packets
        LoadOptions untyped = TC.withCtxRules(null);
        accepted(untyped, dead);
        accepted(untyped, "mov %r0, 0\nldxw %r2, [%r1+76]\nldxb %r5, [%r2+0]\nexit");
        // both sides of a branch count, values aside; a function reached only through its address too
        accepted(TC, "mov %r0, 0\njeq %r0, 0, +1\nmov %r0, 1\nexit");
        LoadOptions loop = TC.withHelpers(dev.bpf4j.runtime.HelperRegistry.builder().add(181, "bpf_loop", (c, a, b, d, e, f) -> 0).build());
        accepted(loop, "mov %r1, 1\nlddw %r2, code_addr(6)\nmov %r3, 0\nmov %r4, 0\ncall 181\nmov %r0, 0\nexit\nmov %r0, 0\nexit");
        // a subprogram nothing calls
        refused(TC, "mov %r0, 0\nexit\nmov %r0, 1\nexit", 2, "unreachable insn 2");
        // after an lddw the next instruction is two slots on
        refused(TC, "lddw %r0, 0x100000000\nexit\nexit", 3, "unreachable insn 3");
    }

    @Test void fixedOffsetPacketAccessesNeedAComparisonWithDataEnd() {
        String head = "mov %r0, 0\nldxw %r2, [%r1+76]\nldxw %r3, [%r1+80]\nmov %r4, %r2\nadd %r4, 14\n";
        refused(TC, head + "ldxb %r5, [%r2+0]\nexit", 5, "R2 offset is outside of the packet");
        accepted(TC, head + "jgt %r4, %r3, +1\nldxdw %r5, [%r2+6]\nexit");
        refused(TC, head + "jgt %r4, %r3, +1\nldxdw %r5, [%r2+7]\nexit", 6, "R2 offset is outside of the packet");
        // pkt < end proves one byte more than pkt <= end (range_right_open)
        accepted(TC, head + "jge %r4, %r3, +1\nldxb %r5, [%r2+14]\nexit");
        refused(TC, head + "jgt %r4, %r3, +1\nldxb %r5, [%r2+14]\nexit", 6, "R2 offset is outside of the packet");
        refused(TC, head + "jgt %r4, %r3, +1\nldxb %r5, [%r2-1]\nexit", 6, "R2 offset is outside of the packet");
    }

    @Test void atomicsOnThePacketAreRefused() {
        String head = "mov %r0, 0\nldxw %r2, [%r1+76]\nldxw %r3, [%r1+80]\nmov %r4, %r2\nadd %r4, 8\njgt %r4, %r3, +1\n";
        refused(TC, head + "lock add [%r2+0], %r0\nexit", 6, "BPF_ATOMIC stores into R2 pkt is not allowed");
    }

    @Test void aCallbackReturnsZeroOrOne() {
        LoadOptions loop = TC.withHelpers(dev.bpf4j.runtime.HelperRegistry.builder().add(181, "bpf_loop", (c, a, b, d, e, f) -> 0).build());
        String call = "mov %r1, 4\nlddw %r2, code_addr(6)\nmov %r3, 0\nmov %r4, 0\ncall 181\nmov %r0, 0\nexit\n";
        accepted(loop, call + "mov %r0, 1\nexit");
        refused(loop, call + "mov %r0, 2\nexit", 9, "At callback return the register R0 has smin=2 smax=2 should have been in [0, 1]");
        refused(loop, call + "ldxdw %r0, [%r2+0]\nexit".replace("ldxdw %r0, [%r2+0]", "mov %r0, %r1\nadd %r0, -1"), 10,
                "At callback return the register R0 has smin=-1");
        refused(loop, call + "exit", 8, "R0 not a scalar value");
    }

    @Test void cgroupSkbProgramsReturnANumberInTheirAttachTypesRange() {
        LoadOptions ingress = ProgramType.CGROUP_SKB.applyTo(TC, AttachType.CGROUP_INET_INGRESS);
        LoadOptions egress = ProgramType.CGROUP_SKB.applyTo(TC, AttachType.CGROUP_INET_EGRESS);
        accepted(ingress, "mov %r0, 1\nexit");
        accepted(ingress, "ldxw %r0, [%r1+0]\nand %r0, 1\nexit");
        refused(ingress, "mov %r0, 2\nexit", 1, "At program exit the register R0 has smin=2 smax=2 should have been in [0, 1]");
        refused(ingress, "mov %r0, -1\nexit", 1, "At program exit the register R0 has smin=-1 smax=-1 should have been in [0, 1]");
        refused(ingress, "ldxw %r0, [%r1+0]\nexit", 1, "At program exit the register R0 has smin=0 smax=4294967295 should have been in [0, 1]");
        refused(ingress, "ldxw %r0, [%r1+76]\nexit", 1, "At program exit the register R0 is not a known value (pkt)");
        refused(ingress, "mov %r0, %r1\nexit", 1, "At program exit the register R0 is not a known value (ctx)");
        accepted(egress, "mov %r0, 3\nexit");
        refused(egress, "mov %r0, 4\nexit", 1, "At program exit the register R0 has smin=4 smax=4 should have been in [0, 3]");
        // other program types have no range: tc may return any number
        accepted(TC, "mov %r0, 99\nexit");
        // ctx rules alone set no range: the range comes from the program type table
        accepted(TC.withCtxRules(ContextRules.CGROUP_SKB), "mov %r0, 2\nexit");
        assertThat(egress.ctxRules()).isEqualTo(ContextRules.CGROUP_SKB);
    }

    @Test void fentryAndIterProgramsReturnTheirRange() {
        LoadOptions raw = TC.withPacketContext(null).withLegacyPacketLoads(false).withCtxRules(ContextRules.RAW_TRACEPOINT);
        LoadOptions fentry = ProgramType.TRACING.applyTo(raw, AttachType.TRACE_FENTRY);
        LoadOptions iter = ProgramType.TRACING.applyTo(raw, AttachType.TRACE_ITER);
        accepted(fentry, "mov %r0, 0\nexit");
        refused(fentry, "mov %r0, 1\nexit", 1, "At program exit the register R0 has smin=1 smax=1 should have been in [0, 0]");
        accepted(iter, "mov %r0, 1\nexit");
        refused(iter, "mov %r0, 2\nexit", 1, "At program exit the register R0 has smin=2 smax=2 should have been in [0, 1]");
        accepted(ProgramType.TRACING.applyTo(raw, AttachType.TRACE_RAW_TP), "mov %r0, 7\nexit"); // tp_btf: anything
    }

    @Test void aProgramTypeCallsOnlyTheHelpersItsGetFuncProtoGives() {
        LoadOptions all = TC.withHelpers(BpfHelpers.registry(MapTable.of(List.of())));
        LoadOptions xdp = ProgramType.XDP.applyTo(all.withPacketContext(PacketContext.XDP_MD), AttachType.NONE);
        refused(xdp, "mov %r2, 0\nmov %r3, 0\ncall 27\nmov %r0, 0\nexit", 2, "program of this type cannot use helper bpf_get_stackid#27");
        refused(xdp, "call 4\nmov %r0, 0\nexit", 0, "program of this type cannot use helper bpf_probe_read#4");
        accepted(xdp, "call 7\nmov %r0, 0\nexit"); // bpf_get_prandom_u32: the base protos
        LoadOptions kprobe = ProgramType.KPROBE.applyTo(all.withPacketContext(null), AttachType.NONE);
        refused(kprobe, "call 26\nmov %r0, 0\nexit", 0, "program of this type cannot use helper bpf_skb_load_bytes#26");
    }

    @Test void constantDivisorsOfZeroAndShiftsPastTheWidthAreRefusedInKernelProgramTypesOnly() {
        refused(TC, "mov %r0, 1\ndiv %r0, 0\nexit", 1, "div by zero");
        refused(TC, "mov %r0, 1\nmod32 %r0, 0\nexit", 1, "div by zero");
        refused(TC, "mov %r0, 1\nlsh %r0, 64\nexit", 1, "invalid shift 64");
        refused(TC, "mov %r0, 1\nrsh32 %r0, 32\nexit", 1, "invalid shift 32");
        refused(TC, "mov %r0, 1\narsh %r0, -1\nexit", 1, "invalid shift -1");
        refused(TC, "div %r0, 0\nexit", 0, "R0 !read_ok"); // the destination is read first, as check_alu_op
        accepted(TC, "mov %r0, 1\nlsh32 %r0, 31\nlsh %r0, 32\nmov %r2, 0\ndiv %r0, %r2\nexit");
        // the RFC's programs keep its semantics: x / 0 = 0, shifts masked
        accepted(BLOCK, "mov %r0, 1\ndiv %r0, 0\nlsh %r0, 64\nexit");
    }

    @Test void mapsGoOnlyToHelpersThatTakeTheirType() {
        LoadOptions o = TC.withHelpers(dev.bpf4j.helpers.BpfHelpers.registry(dev.bpf4j.maps.MapTable.of(java.util.List.of())))
                .withMaps(h -> h == 0x7000 ? new dev.bpf4j.runtime.MapShapes.Shape(4, 8, 2)
                        : h == 0x7040 ? new dev.bpf4j.runtime.MapShapes.Shape(0, 0, 27)
                        : h == 0x7080 ? new dev.bpf4j.runtime.MapShapes.Shape(4, 4, 3) : null);
        String key = "stw [%r10-4], 0\nmov %r2, %r10\nadd %r2, -4\n";
        refused(o, key + "lddw %r1, 0x7080\ncall 1\nmov %r0, 0\nexit", 5, "cannot pass map_type 3 into func bpf_map_lookup_elem#1");
        refused(o, key + "lddw %r1, 0x7040\ncall 1\nmov %r0, 0\nexit", 5, "invalid zero-sized read");
        refused(o, "lddw %r2, 0x7000\nmov %r3, 0\ncall 12\nmov %r0, 0\nexit", 3, "expected prog array map for tail call");
        accepted(o, "lddw %r2, 0x7080\nmov %r3, 0\ncall 12\nmov %r0, 0\nexit");
        accepted(o, key + "lddw %r1, 0x7000\ncall 1\nmov %r0, 0\nexit");
        // a map whose type the verifier does not know is left to the helper
        accepted(o.withMaps(h -> new dev.bpf4j.runtime.MapShapes.Shape(4, 4)), key + "lddw %r1, 0x7080\ncall 1\nmov %r0, 0\nexit");
    }
}
