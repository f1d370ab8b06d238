package dev.bpf4j.isa;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class InsnSetTest {
    /** The opcode bytes of RFC 9669 (appendix A), its legacy packet loads and callx (0x8d). */
    private static final int[] RFC_OPCODES = {
        0x04, 0x0c, 0x14, 0x1c, 0x24, 0x2c, 0x34, 0x3c, 0x44, 0x4c, 0x54, 0x5c, 0x64, 0x6c, 0x74, 0x7c,
        0x84, 0x94, 0x9c, 0xa4, 0xac, 0xb4, 0xbc, 0xc4, 0xcc, 0xd4, 0xdc,
        0x07, 0x0f, 0x17, 0x1f, 0x27, 0x2f, 0x37, 0x3f, 0x47, 0x4f, 0x57, 0x5f, 0x67, 0x6f, 0x77, 0x7f,
        0x87, 0x97, 0x9f, 0xa7, 0xaf, 0xb7, 0xbf, 0xc7, 0xcf, 0xd7,
        0x05, 0x15, 0x1d, 0x25, 0x2d, 0x35, 0x3d, 0x45, 0x4d, 0x55, 0x5d, 0x65, 0x6d, 0x75, 0x7d,
        0x85, 0x8d, 0x95, 0xa5, 0xad, 0xb5, 0xbd, 0xc5, 0xcd, 0xd5, 0xdd,
        0x06, 0x16, 0x1e, 0x26, 0x2e, 0x36, 0x3e, 0x46, 0x4e, 0x56, 0x5e, 0x66, 0x6e, 0x76, 0x7e,
        0xa6, 0xae, 0xb6, 0xbe, 0xc6, 0xce, 0xd6, 0xde,
        0x18, 0x20, 0x28, 0x30, 0x40, 0x48, 0x50,
        0x61, 0x69, 0x71, 0x79, 0x81, 0x89, 0x91,
        0x62, 0x6a, 0x72, 0x7a, 0x63, 0x6b, 0x73, 0x7b, 0xc3, 0xdb,
    };

    @Test
    void validOpcodeBytesAreExactlyTheRfcList() {
        Set<Integer> expected = new HashSet<>();
        for (int op : RFC_OPCODES) expected.add(op);
        Set<Integer> actual = new HashSet<>();
        for (int op = 0; op < 256; op++) if (InsnSet.isValidOpcode(op)) actual.add(op);
        assertThat(actual).isEqualTo(expected);
    }

    @Test
    void everyFormIsRecognisedAsItself() {
        Random r = new Random(1);
        for (InsnEncoding f : InsnSet.encodings()) {
            for (int k = 0; k < 20; k++) {
                Insn first = Samples.of(f, r).get(0);
                assertThat(InsnSet.encodingOf(first)).as(f.mnemonic()).isEqualTo(f);
            }
        }
    }

    @Test
    void secondaryFieldsSelectTheVariant() {
        assertThat(InsnSet.mnemonic(new Insn(0x3f, 0, 1, 0, 0))).isEqualTo("div");
        assertThat(InsnSet.mnemonic(new Insn(0x3f, 0, 1, 1, 0))).isEqualTo("sdiv");
        assertThat(InsnSet.mnemonic(new Insn(0x94, 0, 0, 1, 3))).isEqualTo("smod32");
        assertThat(InsnSet.mnemonic(new Insn(0xbf, 0, 1, 16, 0))).isEqualTo("movsx1664");
        assertThat(InsnSet.mnemonic(new Insn(0xbc, 0, 1, 8, 0))).isEqualTo("movsx832");
        assertThat(InsnSet.mnemonic(new Insn(0xdc, 0, 0, 0, 32))).isEqualTo("be32");
        assertThat(InsnSet.mnemonic(new Insn(0xd7, 0, 0, 0, 64))).isEqualTo("bswap64");
        assertThat(InsnSet.mnemonic(new Insn(0xdb, 1, 2, 0, 0xa1))).isEqualTo("lock fetch xor");
        assertThat(InsnSet.mnemonic(new Insn(0xc3, 1, 2, 0, 0xf1))).isEqualTo("lock cmpxchg32");
        assertThat(InsnSet.mnemonic(new Insn(0x85, 0, 1, 0, 3))).isEqualTo("call local");
        // Combinations that name nothing.
        assertThat(InsnSet.isValid(new Insn(0x3f, 0, 1, 2, 0))).isFalse();   // div with off 2
        assertThat(InsnSet.isValid(new Insn(0xbc, 0, 1, 32, 0))).isFalse();  // movsx32 from 32 bits
        assertThat(InsnSet.isValid(new Insn(0xb7, 0, 0, 8, 0))).isFalse();   // movsx needs a register source
        assertThat(InsnSet.isValid(new Insn(0xd4, 0, 0, 0, 8))).isFalse();   // le8
        assertThat(InsnSet.isValid(new Insn(0xdb, 1, 2, 0, 0x02))).isFalse(); // atomic op 2
        assertThat(InsnSet.isValid(new Insn(0xdb, 1, 2, 0, 0xe0))).isFalse(); // xchg without fetch
        assertThat(InsnSet.isValid(new Insn(0x85, 0, 3, 0, 0))).isFalse();   // call src 3
        assertThat(InsnSet.isValid(new Insn(0x18, 0, 7, 0, 0))).isFalse();   // lddw src 7
        assertThat(InsnSet.isValid(new Insn(0x00, 0, 0, 0, 0))).isFalse();
        // Unused fields must be zero.
        assertThat(InsnSet.isValid(new Insn(0x05, 1, 0, 3, 0))).isFalse();   // ja with a dst
        assertThat(InsnSet.isValid(new Insn(0x95, 0, 0, 0, 1))).isFalse();   // exit with an imm
        assertThat(InsnSet.isValid(new Insn(0x61, 0, 1, 4, 9))).isFalse();   // ldxw with an imm
        assertThat(InsnSet.isValid(new Insn(0x07, 1, 2, 0, 5))).isFalse();   // add imm with a src
        assertThat(InsnSet.isValid(new Insn(0x0f, 1, 2, 0, 5))).isFalse();   // add reg with an imm
        assertThat(InsnSet.isValid(new Insn(0x06, 0, 0, 2, 9))).isFalse();   // gotol with an off
        assertThat(InsnSet.isValid(new Insn(0x61, 0, 1, 4, 0))).isTrue();
    }

    @Test
    void aliasesNameTheSameForms() {
        assertThat(InsnSet.byMnemonic("swap16")).isEqualTo(InsnSet.byMnemonic("bswap16"));
        assertThat(InsnSet.byMnemonic("ldxbsx")).isEqualTo(InsnSet.byMnemonic("ldxsb"));
        assertThat(InsnSet.byMnemonic("add64")).isEqualTo(InsnSet.byMnemonic("add"));
        assertThat(InsnSet.byMnemonic("nope")).isEmpty();
        List<InsnEncoding> add = InsnSet.byMnemonic("add32");
        assertThat(add).extracting(InsnEncoding::opcode).containsExactlyInAnyOrder(0x04, 0x0c);
    }
}
