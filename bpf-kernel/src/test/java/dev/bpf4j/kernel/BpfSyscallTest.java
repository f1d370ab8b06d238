package dev.bpf4j.kernel;

import static dev.bpf4j.isa.Reg.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.asm.ProgramBuilder;
import dev.bpf4j.program.Program;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

class BpfSyscallTest {
    @BeforeEach void needsBpf() { KernelAssumptions.assumeBpf(); }

    static byte[] bytes(Program p) { return Insn.encodeAll(p.toArray()); }

    static ProgLoadRequest syscallProg(String name, Program p) {
        return ProgLoadRequest.syscall(name, bytes(p));
    }

    @Test void syscallProgramReturnsItsR0LowBitsAsRetval() {
        Program p = new ProgramBuilder().mov64(R0, 42).exit().build("ret42");
        try (KernelProgram prog = KernelProgram.load(syscallProg("ret42", p))) {
            assertThat(prog.testRun(TestRunRequest.empty()).retval()).isEqualTo(42);
        }
    }

    @Test void syscallProgramWritesItsContextBackIntoCtxIn() {
        // *(u32 *)(r1 + 4) = *(u32 *)(r1 + 0) + 1; r0 = 7
        Program p = new ProgramBuilder()
                .insn(new Insn(0x61, 2, 1, 0, 0))      // r2 = *(u32 *)(r1 + 0)
                .add64(R2, 1)
                .insn(new Insn(0x63, 1, 2, 4, 0))      // *(u32 *)(r1 + 4) = r2
                .mov64(R0, 7).exit().build("ctxrw");
        byte[] ctx = {41, 0, 0, 0, 0, 0, 0, 0};
        try (KernelProgram prog = KernelProgram.load(syscallProg("ctxrw", p))) {
            TestRunResult r = prog.testRun(TestRunRequest.ofContext(ctx));
            assertThat(r.retval()).isEqualTo(7);
            assertThat(ByteBuffer.wrap(r.ctxIn()).order(ByteOrder.LITTLE_ENDIAN).getInt(4)).isEqualTo(42);
        }
    }

    @Test void verifierRejectionCarriesTheLog() {
        Program p = new ProgramBuilder().mov64(R0, R5).exit().build("uninit"); // r5 is never written
        assertThatThrownBy(() -> KernelProgram.load(syscallProg("uninit", p)))
                .isInstanceOfSatisfying(KernelBpfException.class, e -> {
                    assertThat(e.errnoName()).isEqualTo("EACCES");
                    assertThat(e.verifierLog()).contains("R5 !read_ok");
                    assertThat(e.getMessage()).contains("BPF_PROG_LOAD", "EACCES", "R5 !read_ok");
                });
    }

    /**
     * Why the kernel engine does not pass memory as the syscall program's ctx: the verifier refuses
     * loads through a ctx pointer that was moved, which every pointer-walking program does.
     */
    @Test void movedContextPointersCannotBeDereferenced() {
        Program p = new ProgramBuilder().add64(R1, 8).ldxdw(R0, R1, 0).exit().build("ctxmove");
        assertThatThrownBy(() -> KernelProgram.load(syscallProg("ctxmove", p)))
                .isInstanceOfSatisfying(KernelBpfException.class,
                        e -> assertThat(e.verifierLog()).contains("dereference of modified ctx ptr"));
    }

    @Test void xdpTestRunWithPacketInAndOutAndRepeat() {
        Program p = new ProgramBuilder()
                .ldxw(R2, R1, 0)          // r2 = xdp_md->data
                .ldxw(R3, R1, 4)          // r3 = xdp_md->data_end
                .mov64(R4, R2).add64(R4, 1)
                .jgt(R4, R3, "out")
                .st(dev.bpf4j.isa.Opcodes.B, R2, 0, 0x42)
                .label("out").mov64(R0, 2) // XDP_PASS
                .exit().build("xdp");
        byte[] packet = new byte[64];
        for (int i = 0; i < packet.length; i++) packet[i] = (byte) i;
        try (KernelProgram prog = KernelProgram.load(ProgLoadRequest.of(ProgLoadRequest.BPF_PROG_TYPE_XDP, "bpf4j_xdp", bytes(p)))) {
            TestRunResult r = prog.testRun(new TestRunRequest(packet, 128, null, 0, 10));
            assertThat(r.retval()).isEqualTo(2);
            assertThat(r.dataOut()).hasSize(64);
            assertThat(r.dataOut()[0]).isEqualTo((byte) 0x42);
            assertThat(java.util.Arrays.copyOfRange(r.dataOut(), 1, 64)).isEqualTo(java.util.Arrays.copyOfRange(packet, 1, 64));
            assertThat(r.duration()).isNotNegative();
        }
    }

    @Test void arrayMapRoundTrip() {
        try (KernelMap m = KernelMap.array("bpf4j_t", 8, 4, 0)) {
            byte[] v = {1, 2, 3, 4, 5, 6, 7, 8};
            assertThat(m.lookup(KernelMap.index(2))).containsExactly(new byte[8]);
            m.update(KernelMap.index(2), v, BpfSyscall.BPF_ANY);
            assertThat(m.lookup(KernelMap.index(2))).containsExactly(v);
            assertThat(m.lookup(KernelMap.index(4))).isNull(); // out of range reads as ENOENT
            assertThatThrownBy(() -> m.update(KernelMap.index(1), v, BpfSyscall.BPF_NOEXIST))
                    .isInstanceOfSatisfying(KernelBpfException.class, e -> assertThat(e.errnoName()).isEqualTo("EEXIST"));
        }
    }

    @Test void hashMapRoundTripWithDeleteAndIteration() {
        try (KernelMap m = KernelMap.create(BpfSyscall.BPF_MAP_TYPE_HASH, 4, 8, 16, 0, "bpf4j_h")) {
            assertThat(m.nextKey(null)).isNull();
            m.update(KernelMap.index(7), new byte[] {7, 0, 0, 0, 0, 0, 0, 0}, BpfSyscall.BPF_NOEXIST);
            m.update(KernelMap.index(9), new byte[] {9, 0, 0, 0, 0, 0, 0, 0}, BpfSyscall.BPF_ANY);
            byte[] first = m.nextKey(null);
            byte[] second = m.nextKey(first);
            assertThat(m.nextKey(second)).isNull();
            assertThat(new int[] {first[0], second[0]}).containsExactlyInAnyOrder(7, 9);
            assertThat(m.delete(KernelMap.index(7))).isTrue();
            assertThat(m.delete(KernelMap.index(7))).isFalse();
            assertThat(m.lookup(KernelMap.index(7))).isNull();
            assertThat(m.lookup(KernelMap.index(9))[0]).isEqualTo((byte) 9);
        }
    }

    @Test void progInfoGivesTypeNameAndTag() {
        Program p = new ProgramBuilder().mov64(R0, 0).exit().build("zero");
        try (KernelProgram prog = KernelProgram.load(syscallProg("bpf4j_zero", p))) {
            ProgInfo info = prog.info();
            assertThat(info.type()).isEqualTo(ProgLoadRequest.BPF_PROG_TYPE_SYSCALL);
            assertThat(info.name()).isEqualTo("bpf4j_zero");
            assertThat(info.tagHex()).matches("[0-9a-f]{16}");
            assertThat(info.xlatedProgLen()).isEqualTo(16);
        }
    }

    @Test void objectNamesAreSanitisedAndCut() {
        assertThat(new String(BpfSyscall.objName("a-b.c_d/0123456789xyz")).trim())
                .isEqualTo("a_b.c_d_0123456");
    }
}
