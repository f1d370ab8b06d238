package dev.bpf4j.jit;

import dev.bpf4j.isa.Insn;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.jit.I.*;
import static org.assertj.core.api.Assertions.assertThat;

class ProgramTagTest {
    /*
     * Oracle: the tags Linux 6.18 reported (BPF_PROG_LOAD of a socket filter, then
     * BPF_OBJ_GET_INFO_BY_FD, bpf_prog_info.tag) for these two programs on the bpf4j machine.
     */
    @Test
    void matchesTheRunningKernel() {
        assertThat(ProgramTag.of(List.of(mov64(0, 0), exit()))).isEqualTo("59f4a931744dcdc6");
        assertThat(ProgramTag.of(List.of(mov64(0, 41), alu64(ADD, 0, 1), exit()))).isEqualTo("547028396f136c34");
    }

    @Test
    void legacySha1Tag() {
        // sha1sum of the 16 bytes b7000000 00000000 95000000 00000000, first 8 bytes.
        assertThat(ProgramTag.of(List.of(mov64(0, 0), exit()), ProgramTag.Algorithm.SHA1)).isEqualTo("a04f5eef06a7f555");
    }

    @Test
    void mapFdImmediatesDoNotChangeTheTag() {
        Insn[] a = {new Insn(LDDW, 1, PSEUDO_MAP_FD, 0, 3), new Insn(0, 0, 0, 0, 0), exit()};
        Insn[] b = {new Insn(LDDW, 1, PSEUDO_MAP_FD, 0, 7), new Insn(0, 0, 0, 0, 0), exit()};
        Insn[] c = {new Insn(LDDW, 1, 0, 0, 7), new Insn(0, 0, 0, 0, 0), exit()};
        assertThat(ProgramTag.of(List.of(a))).isEqualTo(ProgramTag.of(List.of(b)));
        assertThat(ProgramTag.of(List.of(c))).isNotEqualTo(ProgramTag.of(List.of(b)));
    }

    /*
     * Oracle: /proc/kallsyms on Linux 6.18 after loading these socket filters as root:
     *   subtest: bpf_prog_748fdaca820effc9_subtest, bpf_prog_0eb5405ba529d7d5_F
     *   nested2: bpf_prog_2fa170e9c64a63e1_nested2, bpf_prog_f8d44a1e0b283126_F, bpf_prog_0eb5405ba529d7d5_F
     */
    @Test
    void functionSymbolsMatchKallsyms() {
        var subtest = prog("subtest", mov64(1, 1), callLocal(1), exit(), mov64r(0, 1), exit());
        var nested2 = prog("nested2", mov64(1, 1), callLocal(1), exit(), callLocal(1), exit(), mov64r(0, 1), exit());
        try (var x = Jit.LOADER.load(subtest, dev.bpf4j.runtime.LoadOptions.defaults())) {
            assertThat(x.codeRegions()).extracting(dev.bpf4j.unwind.CodeRegion::symbol)
                    .startsWith("bpf_prog_748fdaca820effc9_subtest", "bpf_prog_0eb5405ba529d7d5_F");
        }
        try (var x = Jit.LOADER.load(nested2, dev.bpf4j.runtime.LoadOptions.defaults())) {
            assertThat(x.codeRegions()).extracting(dev.bpf4j.unwind.CodeRegion::symbol)
                    .startsWith("bpf_prog_2fa170e9c64a63e1_nested2", "bpf_prog_f8d44a1e0b283126_F", "bpf_prog_0eb5405ba529d7d5_F");
        }
    }
}
