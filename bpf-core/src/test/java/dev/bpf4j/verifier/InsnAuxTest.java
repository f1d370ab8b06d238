package dev.bpf4j.verifier;

import dev.bpf4j.conformance.SuiteHelpers;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.asm.Assembler;
import dev.bpf4j.runtime.EntryRegisters;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MapShapes;
import dev.bpf4j.runtime.PacketContext;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The per-instruction facts the verifier hands the engines ({@link InsnAux}, the kernel's bpf_insn_aux_data). */
class InsnAuxTest {
    static final LoadOptions BLOCK = LoadOptions.defaults().withHelpers(SuiteHelpers.REGISTRY).withEntry(EntryRegisters.MEMORY_BLOCK);

    static InsnAux aux(String asm) {
        return Validator.analyze(Assembler.assembleProgram("aux", asm), BLOCK).aux();
    }

    @Test
    void eachAccessKnowsItsPointerKind() {
        InsnAux a = aux("mov %r3, %r10\nadd %r3, -8\nstdw [%r3+0], 1\nldxdw %r0, [%r1+4]\nstxdw [%r10-16], %r0\nexit");
        assertThat(a.baseTypeNames(2)).isEqualTo("fp");
        assertThat(a.stackOnly(2)).isTrue();
        assertThat(a.touchesFrames(2)).isTrue();
        assertThat(a.proven(2)).isTrue();
        assertThat(a.baseTypeNames(3)).isEqualTo("ctx");
        assertThat(a.touchesFrames(3)).isFalse();
        assertThat(a.proven(3)).isFalse();
        assertThat(a.stackOnly(4)).isTrue();
        assertThat(a.baseTypeNames(0)).isEmpty(); // not an access
    }

    @Test
    void pathsMerge() {
        // a stack pointer on one path, a number on the other: may touch a frame, not proven
        InsnAux a = aux("mov %r3, 0\njeq %r2, 0, st\nmov %r3, %r10\nadd %r3, -8\nst:\nstdw [%r3+0], 1\nmov %r0, 0\nexit");
        assertThat(a.baseTypeNames(4)).isEqualTo("scalar|fp");
        assertThat(a.touchesFrames(4)).isTrue();
        assertThat(a.stackOnly(4)).isFalse();
        assertThat(a.proven(4)).isFalse();
    }

    @Test
    void helperArgumentsKnowWhetherTheyAreStackPointers() {
        InsnAux a = aux("mov %r1, %r10\nadd %r1, -8\nmov %r2, 8\nmov %r3, %r1\ncall " + HelperIds.PROBE_READ_KERNEL
                + "\nmov %r1, %r10\nadd %r1, -8\nmov %r2, 8\nmov %r3, 0\ncall " + HelperIds.PROBE_READ_KERNEL + "\nexit");
        assertThat(a.argTouchesFrames(4, 1)).isTrue();
        assertThat(a.argTouchesFrames(4, 2)).isFalse();
        assertThat(a.argTouchesFrames(4, 3)).isTrue();
        assertThat(a.argTouchesFrames(9, 3)).isFalse();
        assertThat(a.anyArgTouchesFrames(9)).isTrue();
        assertThat(a.argTypeNames(9, 3)).isEqualTo("scalar");
    }

    @Test
    void aStackPointerAndAMemoryBlockPointerCannotShareAnAccess() {
        assertThatThrownBy(() -> aux("mov %r3, %r1\njeq %r2, 0, st\nmov %r3, %r10\nadd %r3, -8\nst:\nstdw [%r3+0], 1\nmov %r0, 0\nexit"))
                .isInstanceOfSatisfying(VerifierException.class, v -> {
                    assertThat(v.pc()).isEqualTo(4);
                    assertThat(v.reason()).startsWith("same insn cannot be used with different pointers (R3 is ");
                });
    }

    static final long HANDLE = 0x7f0000001000L;
    static final LoadOptions OBJECT = LoadOptions.defaults()
            .withHelpers(HelperRegistry.builder().add(HelperIds.MAP_LOOKUP_ELEM, "bpf_map_lookup_elem", (c, a, b, d, e, f) -> 0).build())
            .withEntry(EntryRegisters.CONTEXT).withMaps(h -> h == HANDLE ? new MapShapes.Shape(4, 8) : null);

    /** A lookup in the 8-byte-value map behind HANDLE, then {@code access} through r0 when found. */
    static String lookupThen(String access) {
        return "lddw %r1, " + HANDLE + "\nstw [%r10-4], 0\nmov %r2, %r10\nadd %r2, -4\ncall " + HelperIds.MAP_LOOKUP_ELEM
                + "\njeq %r0, 0, out\n" + access + "\nout:\nmov %r0, 0\nexit";
    }

    @Test
    void aMapHandleIsAMapPointerWhoseValuesAreProvenAgainstTheirSize() {
        InsnAux a = Validator.analyze(Assembler.assembleProgram("map", lookupThen("ldxdw %r3, [%r0+0]")), OBJECT).aux();
        assertThat(a.baseTypeNames(7)).isEqualTo("map_value");
        assertThat(a.proven(7)).isTrue();
        assertThatThrownBy(() -> Validator.analyze(Assembler.assembleProgram("map", lookupThen("ldxdw %r3, [%r0+4]")), OBJECT))
                .isInstanceOfSatisfying(VerifierException.class, v -> assertThat(v.reason()).isEqualTo("invalid access to map value, value_size=8 off=4 size=8"));
        // atomics on a map value must be aligned to their size (check_ptr_alignment, strict for atomics)
        assertThatThrownBy(() -> Validator.analyze(Assembler.assembleProgram("map", lookupThen("mov %r1, 1\nlock add32 [%r0+2], %r1")), OBJECT))
                .isInstanceOfSatisfying(VerifierException.class, v -> assertThat(v.reason()).isEqualTo("misaligned value access off 0+0+2 size 4"));
        Validator.analyze(Assembler.assembleProgram("map", lookupThen("mov %r1, 1\nlock add32 [%r0+4], %r1")), OBJECT);
        // the key must lie in the frame with the map's 4-byte key size
        assertThatThrownBy(() -> Validator.analyze(Assembler.assembleProgram("map", "lddw %r1, " + HANDLE
                + "\nmov %r2, %r10\nadd %r2, -2\ncall 1\nmov %r0, 0\nexit"), OBJECT))
                .isInstanceOfSatisfying(VerifierException.class, v -> assertThat(v.reason()).startsWith("invalid stack off=-2 size=4"));
        // without the shapes the handle is a number and the value's size unknown: checked at run time
        InsnAux unknown = Validator.analyze(Assembler.assembleProgram("map", lookupThen("ldxdw %r3, [%r0+4]")), OBJECT.withMaps(MapShapes.NONE)).aux();
        assertThat(unknown.proven(7)).isFalse();
    }

    static final LoadOptions XDP = LoadOptions.defaults().withEntry(EntryRegisters.CONTEXT).withPacketContext(PacketContext.XDP_MD);

    @Test
    void aComparisonWithThePacketEndProvesTheBytesBeforeIt() {
        // data + 14 > data_end: out; then bytes 0..13 are in the packet
        String asm = "ldxw %r2, [%r1+0]\nldxw %r3, [%r1+4]\nmov %r4, %r2\nadd %r4, 14\njgt %r4, %r3, out\n"
                + "ldxb %r0, [%r2+13]\nldxh %r0, [%r2+12]\nmov %r5, %r2\nadd %r5, 6\nldxw %r0, [%r5+4]\n"
                + "out:\nmov %r0, 0\nexit";
        InsnAux a = Validator.analyze(Assembler.assembleProgram("pkt", asm), XDP).aux();
        assertThat(a.baseTypeNames(5)).isEqualTo("pkt");
        assertThat(a.proven(5)).as("byte 13").isTrue();
        assertThat(a.proven(6)).as("bytes 12-13").isTrue();
        assertThat(a.proven(9)).as("bytes 10-13 through a moved pointer").isTrue();
        // byte 14, past the check, at a fixed offset: Linux's check_packet_access refuses it, so does bpf4j
        assertThatThrownBy(() -> Validator.analyze(Assembler.assembleProgram("pkt", asm.replace("ldxh %r0, [%r2+12]", "ldxb %r0, [%r2+14]")),
                XDP.withCtxRules(dev.bpf4j.runtime.ContextRules.XDP)))
                .isInstanceOfSatisfying(VerifierException.class, v -> assertThat(v.reason()).startsWith("R2 offset is outside of the packet"));
        // the taken side of "if data + 14 <= data_end" proves the same
        String reversed = "ldxw %r2, [%r1+0]\nldxw %r3, [%r1+4]\nmov %r4, %r2\nadd %r4, 14\njle %r4, %r3, in\n"
                + "mov %r0, 0\nexit\nin:\nldxb %r0, [%r2+0]\nexit";
        InsnAux b = Validator.analyze(Assembler.assembleProgram("pkt", reversed), XDP).aux();
        assertThat(b.proven(7)).isTrue();
    }

    @Test
    void argumentsNoPathSetAreMarkedForTheEngines() {
        // r1 and r2 set, r3 set on one path only, r4 and r5 never: the engines pass 0 for r4 and r5 alone
        LoadOptions o = BLOCK.withHelpers(dev.bpf4j.runtime.HelperRegistry.builder().add(90, "user_helper", (c, a, b, d, e, f) -> 0).build());
        InsnAux a = Validator.analyze(Assembler.assembleProgram("args",
                "mov %r6, %r1\nmov %r1, 1\nmov %r2, 2\njeq %r6, 0, +1\nmov %r3, 3\ncall 90\nmov %r0, 0\nexit"), o).aux();
        assertThat(a.unsetArgs(5)).isEqualTo((1 << 4) | (1 << 5));
        assertThat(a.anyUnsetArgs()).isTrue();
        assertThat(a.unsetArgs(0)).as("not a call").isZero();
        InsnAux all = Validator.analyze(Assembler.assembleProgram("args",
                "mov %r1, 1\nmov %r2, 2\nmov %r3, 3\nmov %r4, 4\nmov %r5, 5\ncall 90\nmov %r0, 0\nexit"), o).aux();
        assertThat(all.anyUnsetArgs()).isFalse();
    }

    @Test
    void aVariableOffsetPacketPointerProvesBytesPastItsOwnVariablePart() {
        // p = data + (rx_queue_index & 63); if (p + 4 > data_end) out; then p[0..3] are there, p[4] is not,
        // and data[0] is not either (the variable part may be 0 .. 63, the proof is only past it)
        String asm = "ldxw %r2, [%r1+0]\nldxw %r3, [%r1+4]\nldxw %r4, [%r1+16]\nand %r4, 63\nadd %r2, %r4\n"
                + "mov %r5, %r2\nadd %r5, 4\njgt %r5, %r3, out\n"
                + "ldxw %r0, [%r2+0]\nldxb %r0, [%r2+3]\nldxb %r0, [%r2+4]\nldxb %r0, [%r5-1]\n"
                + "out:\nmov %r0, 0\nexit";
        InsnAux a = Validator.analyze(Assembler.assembleProgram("pkt", asm), XDP).aux();
        assertThat(a.proven(8)).as("p[0..3]").isTrue();
        assertThat(a.proven(9)).as("p[3]").isTrue();
        assertThat(a.proven(10)).as("p[4], past the check").isFalse();
        assertThat(a.proven(11)).as("(p + 4)[-1], a copy with the same variable part").isTrue();
        // the same through a pointer whose variable part is another one (a second add): nothing proven
        String other = "ldxw %r2, [%r1+0]\nldxw %r3, [%r1+4]\nldxw %r4, [%r1+16]\nand %r4, 63\nadd %r2, %r4\n"
                + "mov %r5, %r2\nadd %r5, 4\nmov %r6, %r2\nadd %r6, %r4\njgt %r5, %r3, out\nldxb %r0, [%r6+0]\n"
                + "out:\nmov %r0, 0\nexit";
        assertThat(Validator.analyze(Assembler.assembleProgram("pkt", other), XDP).aux().proven(10)).isFalse();
    }
}
