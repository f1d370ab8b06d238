package dev.bpf4j.object;

import dev.bpf4j.elf.ElfFile;
import dev.bpf4j.elf.ElfSection;
import dev.bpf4j.runtime.BpfLoadException;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Objects libbpf rejects are rejected with a message naming the phase, the section or map, and the reason. */
class ObjectLoadErrorTest {
    @Test
    void unknownBtfMapField() {
        assertThatThrownBy(() -> Fixtures.spec("bad_map_field")).isInstanceOf(BpfLoadException.class)
                .hasMessage("load maps: map 'odd': unknown field 'bogus'");
    }

    @Test
    void staticProgram() {
        assertThatThrownBy(() -> Fixtures.spec("bad_static_prog")).isInstanceOf(BpfLoadException.class)
                .hasMessage("load programs: section 'xdp': program 'hidden' is static; programs must be global functions (as in libbpf)");
    }

    private static ByteBuffer le(byte[] b) { return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN); }

    private static long sectionOffset(byte[] obj, String name) {
        ElfFile elf = ElfFile.parse(obj);
        return elf.section(name).map(ElfSection::offset).orElseThrow();
    }

    @Test
    void callIntoTheMiddleOfASubprogram() {
        byte[] obj = Fixtures.bytes("subprog");
        // socket insn 1 is "call 2" relocated against .text: make it "call 3" (inside sum_squares).
        le(obj).putInt((int) sectionOffset(obj, "socket") + 8 + 4, 3);
        assertThatThrownBy(() -> BpfObjectSpec.parse(obj, "subprog.o"))
                .hasMessage("apply relocations: function 'sock_prog' (section 'socket'): call at insn 1 targets .text instruction 4, inside 'sum_squares' rather than at its start");
    }

    @Test
    void relocationOnAnInstructionThatIsNeitherLddwNorCall() {
        byte[] obj = Fixtures.bytes("subprog");
        le(obj).putLong((int) sectionOffset(obj, ".relsocket"), 0); // r_offset 8 -> 0 (an ldx)
        assertThatThrownBy(() -> BpfObjectSpec.parse(obj, "subprog.o"))
                .hasMessage("apply relocations: section 'socket' relocation #0 at insn 0 against '.text': instruction 0x61 is neither lddw nor call (R_BPF_64_32)");
    }

    @Test
    void legacyMapDefinitionOutsideItsSection() {
        byte[] obj = Fixtures.bytes("legacy_maps");
        ElfFile elf = ElfFile.parse(obj);
        // Move symbol 'legacy_hash' (index 14) past the end of the 40-byte 'maps' section.
        long symtab = elf.symbolTable().orElseThrow().offset();
        le(obj).putLong((int) (symtab + 14 * 24 + 8), 40);
        // With BTF, the DATASEC fixup (libbpf's btf_fixup_datasec) notices first ...
        assertThatThrownBy(() -> BpfObjectSpec.parse(obj, "legacy_maps.o")).isInstanceOf(BpfLoadException.class)
                .hasMessage("load BTF: DATASEC 'maps': variable 'legacy_hash' at offset 40 (size 20) lies outside the section (40 bytes)");
        // ... without it, the legacy map parser does.
        byte[] noBtf = withoutBtf(obj);
        assertThatThrownBy(() -> BpfObjectSpec.parse(noBtf, "legacy_maps.o")).isInstanceOf(BpfLoadException.class)
                .hasMessage("load maps: map 'legacy_hash': definition at offset 40 (size 20) lies outside section 'maps' (40 bytes)");
    }

    /** Renames .BTF and .BTF.ext (to .BTX...) in the section name table, so the loader sees no BTF. */
    static byte[] withoutBtf(byte[] obj) {
        byte[] out = obj.clone();
        ElfFile elf = ElfFile.parse(obj);
        ElfSection names = elf.sections().get(le(obj).getShort(62));
        for (long p = names.offset(); p + 4 <= names.offset() + names.size(); p++) {
            if (out[(int) p] == '.' && out[(int) p + 1] == 'B' && out[(int) p + 2] == 'T' && out[(int) p + 3] == 'F') out[(int) p + 3] = 'X';
        }
        assertThat(ElfFile.parse(out).section(".BTF")).isEmpty();
        return out;
    }

    @Test
    void truncatedCodeSection() {
        byte[] obj = Fixtures.bytes("xdp_multi");
        ElfFile elf = ElfFile.parse(obj);
        int tc = elf.section("tc").orElseThrow().index();
        long shoff = le(obj).getLong(40);
        le(obj).putLong((int) (shoff + tc * 64L + 32), 0x2c); // size 0x30 -> 0x2c
        assertThatThrownBy(() -> BpfObjectSpec.parse(obj, "xdp_multi.o"))
                .hasMessage("load programs: section 4 'tc' size 44 is not a multiple of 8 (truncated instruction)");
    }

    @Test
    void readingAMissingFileIsALoadError() {
        assertThatThrownBy(() -> BpfObjectSpec.read(Fixtures.DIR.resolve("nope.o"))).isInstanceOf(BpfLoadException.class)
                .hasMessageContaining("nope.o");
    }

    @Test
    void objectsWithoutBtfStillParse() {
        BpfObjectSpec spec = BpfObjectSpec.parse(withoutBtf(Fixtures.bytes("legacy_maps")), "legacy_maps.o");
        assertThat(spec.btf()).isNull();
        assertThat(spec.maps()).hasSize(2);
        assertThat(spec.program("legacy_prog").lineInfos()).isEmpty();
        assertThat(spec.program("legacy_prog").mapReferences()).hasSize(2);
        // without BTF, externs cannot be typed: a __kconfig variable is an unresolved extern
        assertThatThrownBy(() -> BpfObjectSpec.parse(withoutBtf(Fixtures.bytes("globals")), "globals.o"))
                .hasMessage("apply relocations: section 'syscall' relocation #4 at insn 16 against 'CONFIG_HZ': unresolved extern 'CONFIG_HZ' (only __kconfig externs are supported)");
        assertThatThrownBy(() -> BpfObjectSpec.parse(withoutBtf(Fixtures.bytes("btf_maps")), "btf_maps.o"))
                .hasMessage("load maps: section '.maps' needs .BTF, but the object has none (compile with -g)");
    }

    @Test
    void everyValidFixtureParses() {
        for (String name : Fixtures.NAMES) assertThat(Fixtures.spec(name).programs()).as(name).isNotEmpty();
    }
}
