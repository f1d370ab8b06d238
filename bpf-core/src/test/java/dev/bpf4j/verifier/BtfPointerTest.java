package dev.bpf4j.verifier;

import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.asm.Assembler;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.runtime.EntryRegisters;
import dev.bpf4j.runtime.LoadOptions;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * PTR_TO_BTF_ID: the task bpf_get_current_task_btf returns (RET_PTR_TO_BTF_ID_TRUSTED), the vma
 * bpf_find_vma hands its callback, and the task arguments of bpf_find_vma and bpf_copy_from_user_task
 * (ARG_PTR_TO_BTF_ID), with Linux's messages. bpf4j reads vm_start, vm_end, vm_flags, vm_pgoff and
 * vm_file of a vma and no field of a task (a gap: Linux reads any member through vmlinux BTF).
 */
class BtfPointerTest {
    private static final LoadOptions O = LoadOptions.defaults().withEntry(EntryRegisters.CONTEXT)
            .withHelpers(BpfHelpers.registry(MapTable.create(List.of())));

    private static void refused(String asm, int pc, String reason) {
        assertThatThrownBy(() -> Validator.validate(Assembler.assembleProgram("k", asm), O))
                .isInstanceOfSatisfying(VerifierException.class, e -> {
                    assertThat(e.reason()).startsWith(reason);
                    assertThat(e.pc()).isEqualTo(pc);
                });
    }

    private static void accepted(String asm) { Validator.validate(Assembler.assembleProgram("k", asm), O); }

    /** r6 = ctx; task; find_vma(task, 0x1000, callback at pc 13, fp-8, 0); r0 = 0; then the callback. */
    private static final String FIND = "mov %r6, %r1\nstdw [%r10-8], 0\ncall 158\nmov %r1, %r0\nmov %r2, 0x1000\n"
            + "lddw %r3, code_addr(7)\nmov %r4, %r10\nadd %r4, -8\nmov %r5, 0\ncall 180\nmov %r0, 0\nexit\n";

    @Test void theCallbackReadsTheFieldsOfTheVma() {
        accepted(FIND + "ldxdw %r4, [%r2+0]\nldxdw %r5, [%r2+8]\nldxw %r4, [%r2+32]\nldxdw %r4, [%r2+80]\n"
                + "ldxdw %r4, [%r2+88]\nstxdw [%r3+0], %r5\nmov %r0, 1\nexit");
        refused(FIND + "ldxdw %r4, [%r2+16]\nmov %r0, 0\nexit", 13, "R2 is ptr_vm_area_struct: bpf4j reads no field");
        refused(FIND + "ldxdw %r4, [%r2+192]\nmov %r0, 0\nexit", 13, "access beyond struct vm_area_struct at off 192 size 8");
        refused(FIND + "ldxdw %r4, [%r2-8]\nmov %r0, 0\nexit", 13, "R2 is ptr_vm_area_struct invalid negative access: off=-8");
        refused(FIND + "stdw [%r2+0], 0\nmov %r0, 0\nexit", 13, "only read is supported");
        refused(FIND + "stxdw [%r2+8], %r1\nmov %r0, 0\nexit", 13, "only read is supported");
    }

    @Test void theCallbackReturnsZeroOrOne() {
        accepted(FIND + "mov %r0, 0\nexit");
        refused(FIND + "mov %r0, 2\nexit", 14, "At callback return the register R0 has smin=2 smax=2 should have been in [0, 1]");
        refused(FIND + "mov %r0, %r2\nexit", 14, "R0 not a scalar value");
    }

    @Test void theTaskIsNoMemoryAndOnlyATaskIsATask() {
        refused("call 158\nldxdw %r0, [%r0+0]\nexit", 1, "R0 is ptr_task_struct: bpf4j reads no field of struct task_struct at off 0 size 8");
        refused("call 158\nexit", 1, "R0 leaks addr as return value");
        refused("mov %r6, %r1\ncall 158\nstxdw [%r6+0], %r0\nmov %r0, 0\nexit", 2, "R0 leaks addr into ctx");
        // the callback's r1 is the task again; its r2 is no task
        accepted(FIND + "mov %r2, 0\nlddw %r3, code_addr(6)\nmov %r4, 0\nmov %r5, 0\ncall 180\nmov %r0, 0\nexit\nmov %r0, 0\nexit");
        refused(FIND + "mov %r1, %r2\nmov %r2, 0\nlddw %r3, code_addr(6)\nmov %r4, 0\nmov %r5, 0\ncall 180\nmov %r0, 0\nexit\n"
                + "mov %r0, 0\nexit", 19, "R1 is of type vm_area_struct but task_struct is expected");
        refused("mov %r2, 0\nlddw %r3, code_addr(6)\nmov %r4, 0\nmov %r5, 0\ncall 180\nmov %r0, 0\nexit\nmov %r0, 0\nexit", 5,
                "R1 type=ctx expected=ptr_, trusted_ptr_, rcu_ptr_");
        refused("call 158\nmov %r1, %r0\nadd %r1, 8\nmov %r2, 0\nlddw %r3, code_addr(6)\nmov %r4, 0\nmov %r5, 0\ncall 180\n"
                + "mov %r0, 0\nexit\nmov %r0, 0\nexit", 8, "dereference of modified ptr_ ptr R1 off=8 disallowed");
    }

    @Test void copyFromUserTaskTakesTheTaskAsItsFourthArgument() {
        accepted("call 158\nmov %r4, %r0\nmov %r1, %r10\nadd %r1, -8\nmov %r2, 8\nmov %r3, 0\nmov %r5, 0\ncall 191\n"
                + "ldxdw %r0, [%r10-8]\nexit");
        refused("mov %r4, %r1\nmov %r1, %r10\nadd %r1, -8\nmov %r2, 8\nmov %r3, 0\nmov %r5, 0\ncall 191\nmov %r0, 0\nexit", 6,
                "R4 type=ctx expected=ptr_, trusted_ptr_, rcu_ptr_");
    }
}
