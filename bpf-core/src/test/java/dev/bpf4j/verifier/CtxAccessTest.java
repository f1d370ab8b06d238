package dev.bpf4j.verifier;

import dev.bpf4j.asm.Assembler;
import dev.bpf4j.runtime.ContextRules;
import dev.bpf4j.runtime.EntryRegisters;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.PacketContext;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The ctx access rules of the program types ({@link CtxAccess}), the kernel's wording and pc. Every offset, size and
 * kind of access is compared with Linux itself in bpf-kernel's CtxAccessOracleTest; these are the cases that leaked
 * or that Linux's rules hinge on.
 */
class CtxAccessTest {
    private static final LoadOptions TC = LoadOptions.defaults().withEntry(EntryRegisters.CONTEXT)
            .withPacketContext(PacketContext.SK_BUFF).withCtxRules(ContextRules.TC);
    private static final LoadOptions XDP = LoadOptions.defaults().withEntry(EntryRegisters.CONTEXT)
            .withPacketContext(PacketContext.XDP_MD).withCtxRules(ContextRules.XDP);

    private static void refused(LoadOptions o, String asm, int pc, String reason) {
        assertThatThrownBy(() -> Validator.validate(Assembler.assembleProgram("ctx", asm), o))
                .isInstanceOfSatisfying(VerifierException.class, e -> {
                    assertThat(e.pc()).isEqualTo(pc);
                    assertThat(e.reason()).isEqualTo(reason);
                });
    }

    private static void accepted(LoadOptions o, String asm) { Validator.validate(Assembler.assembleProgram("ctx", asm), o); }

    @Test void aLoadStraddlingTheDataPointerIsRefused() {
        // tc_classid is 72..75, data 76..79: three bytes of a native address
        refused(TC, "mov %r6, %r1\nmov %r0, 0\nldxw %r7, [%r6+75]\nxor %r0, %r7\nexit", 2, "invalid bpf_context access off=75 size=4");
        refused(TC, "ldxh %r0, [%r1+76]\nexit", 0, "invalid bpf_context access off=76 size=2");
        refused(TC, "ldxdw %r0, [%r1+76]\nexit", 0, "invalid bpf_context access off=76 size=8");
        accepted(TC, "ldxw %r2, [%r1+76]\nldxw %r3, [%r1+80]\nmov %r0, 0\nexit");
    }

    @Test void narrowReadsOfNumbersAreAllowedWritesOnlyToWritableFields() {
        accepted(TC, "ldxb %r0, [%r1+3]\nldxh %r0, [%r1+2]\nexit"); // len, narrow
        accepted(TC, "mov %r2, 1\nstxw [%r1+8], %r2\nstxdw [%r1+48], %r2\nmov %r0, 0\nexit"); // mark, cb[0..1]
        refused(TC, "mov %r2, 1\nstxw [%r1+0], %r2\nmov %r0, 0\nexit", 1, "invalid bpf_context access off=0 size=4"); // len
        refused(TC, "mov %r2, 1\nstxh [%r1+8], %r2\nmov %r0, 0\nexit", 1, "invalid bpf_context access off=8 size=2");
        refused(TC, "ldxw %r0, [%r1+88]\nexit", 0, "invalid bpf_context access off=88 size=4"); // family: sk_skb only
        refused(TC, "ldxw %r0, [%r1+192]\nexit", 0, "invalid bpf_context access off=192 size=4");
    }

    @Test void xdpMdHasOnlyFourByteReads() {
        // raw_tp code in an xdp section read data and data_end as 8-byte numbers (object-findings/packet-pointer-stored-in-map.o)
        refused(XDP, "ldxdw %r0, [%r1+0]\nexit", 0, "invalid bpf_context access off=0 size=8");
        refused(XDP, "ldxsw %r0, [%r1+4]\nexit", 0, "invalid bpf_context access off=4 size=4");
        refused(XDP, "ldxw %r0, [%r1+20]\nexit", 0, "invalid bpf_context access off=20 size=4"); // egress_ifindex: devmap only
        refused(XDP, "mov %r2, 0\nstxw [%r1+12], %r2\nmov %r0, 0\nexit", 1, "invalid bpf_context access off=12 size=4");
        accepted(XDP, "ldxw %r0, [%r1+16]\nexit");
    }

    @Test void aModifiedCtxPointerIsRefusedAsInLinux() {
        refused(TC, "mov %r6, %r1\nadd %r6, 4\nldxw %r0, [%r6-4]\nexit", 2, "dereference of modified ctx ptr R6 off=4 disallowed");
    }

    @Test void withoutRulesAnyConstantOffsetBelow4KiBStaysAllowed() {
        LoadOptions lenient = LoadOptions.defaults().withEntry(EntryRegisters.CONTEXT);
        accepted(lenient, "ldxdw %r0, [%r1+75]\nexit");
    }
}
