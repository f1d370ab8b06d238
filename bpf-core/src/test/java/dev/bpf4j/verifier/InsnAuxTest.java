package dev.bpf4j.verifier;

import dev.bpf4j.conformance.SuiteHelpers;
import dev.bpf4j.helpers.HelperIds;
import dev.bpf4j.isa.Assembler;
import dev.bpf4j.runtime.EntryRegisters;
import dev.bpf4j.runtime.LoadOptions;
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
}
