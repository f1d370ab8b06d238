package dev.bpf4j.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bpf4j.asm.Assembler;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.program.Program;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * The kernel's program tag (BPF_OBJ_GET_INFO_BY_FD), the value the JIT's {@code bpf_prog_<tag>_<name>}
 * symbols must reproduce. The vectors below are in docs/kernel-engine.md.
 */
class ProgTagTest {
    @BeforeEach void needsBpf() { KernelAssumptions.assumeBpf(); }

    static String kernelTag(byte[] insns) {
        try (KernelProgram p = KernelProgram.load(ProgLoadRequest.of(ProgLoadRequest.BPF_PROG_TYPE_SOCKET_FILTER, "bpf4j_tag", insns))) {
            return p.info().tagHex();
        }
    }

    /**
     * First 8 bytes of {@code digest} (SHA-256 since Linux 6.18, SHA-1 before) over the instruction
     * bytes with the imm of map-fd/map-value lddw zeroed.
     */
    static String digestTag(String digest, byte[] insns) throws Exception {
        byte[] copy = insns.clone();
        for (int i = 0; i + 16 <= copy.length; i += 8) {
            int src = (copy[i + 1] & 0xff) >>> 4;
            if ((copy[i] & 0xff) == Opcodes.LDDW && (src == Opcodes.PSEUDO_MAP_FD || src == Opcodes.PSEUDO_MAP_VALUE)) {
                Arrays.fill(copy, i + 4, i + 8, (byte) 0);
                Arrays.fill(copy, i + 12, i + 16, (byte) 0);
            }
            if ((copy[i] & 0xff) == Opcodes.LDDW) i += 8;
        }
        return HexFormat.of().formatHex(MessageDigest.getInstance(digest).digest(copy), 0, 8);
    }

    static byte[] bytes(String asm) { return Insn.encodeAll(Assembler.assemble(asm).toArray(new Insn[0])); }

    @Test void tagVectors() throws Exception {
        String[] programs = {
            "mov r0, 0\nexit",
            "lddw r0, 0x123456789abcdef0\njeq r1, 0, +1\nadd r0, 1\nexit",
        };
        for (String asm : programs) {
            byte[] insns = bytes(asm);
            String tag = kernelTag(insns);
            System.out.println("tag vector: " + HexFormat.of().formatHex(insns) + " -> " + tag);
            assertThat(tag).as(asm).isIn(digestTag("SHA-256", insns), digestTag("SHA-1", insns));
        }
    }

    /** The vector in docs/kernel-engine.md, for kernels from 6.18 on (SHA-256). */
    @Test void documentedVectorOnThisKernel() throws Exception {
        byte[] insns = bytes("mov r0, 0\nexit");
        String tag = kernelTag(insns);
        org.junit.jupiter.api.Assumptions.assumeTrue(tag.equals(digestTag("SHA-256", insns)),
                "this kernel computes tags with SHA-1 (before Linux 6.18): " + tag);
        assertThat(tag).isEqualTo("59f4a931744dcdc6");
    }

    @Test void mapFdsDoNotChangeTheTag() throws Exception {
        try (KernelMap a = KernelMap.array("bpf4j_a", 8, 1, 0); KernelMap b = KernelMap.array("bpf4j_b", 8, 1, 0)) {
            String[] tags = new String[2];
            int k = 0;
            for (KernelMap m : new KernelMap[] {a, b}) {
                Program p = new Program("mv", java.util.List.of(
                        new Insn(Opcodes.LDDW, 1, Opcodes.PSEUDO_MAP_VALUE, 0, m.fd()), new Insn(0, 0, 0, 0, 0),
                        new Insn(Opcodes.LDX | Opcodes.MEM | Opcodes.DW, 0, 1, 0, 0),
                        new Insn(Opcodes.JMP | Opcodes.EXIT, 0, 0, 0, 0)));
                byte[] insns = Insn.encodeAll(p.toArray());
                tags[k++] = kernelTag(insns);
                assertThat(tags[k - 1]).isIn(digestTag("SHA-256", insns), digestTag("SHA-1", insns));
            }
            assertThat(tags[0]).isEqualTo(tags[1]);
        }
    }
}
