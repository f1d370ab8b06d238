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
        assertThatThrownBy(() -> BpfObjectSpec.parse(obj, "legacy_maps.o")).isInstanceOf(BpfLoadException.class)
                .hasMessage("load maps: map 'legacy_hash': definition at offset 40 (size 20) lies outside section 'maps' (40 bytes)");
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
    void everyValidFixtureParses() {
        for (String name : Fixtures.NAMES) assertThat(Fixtures.spec(name).programs()).as(name).isNotEmpty();
    }
}
