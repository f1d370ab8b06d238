package dev.bpf4j.verifier;

/**
 * The kernel structs a {@link RegType#PTR_TO_BTF_ID} register may point to, with the fields a program
 * may read through it ({@code btf_struct_access} against vmlinux BTF in Linux). bpf4j knows no vmlinux
 * BTF: the layouts are Linux 6.18's on x86-64, and only the fields bpf4j fills are readable.
 */
enum BtfObject {
    /** No field is readable: bpf4j has no task_struct (a documented gap; Linux reads any field). 3264 bytes on this 6.18 config. */
    TASK_STRUCT("task_struct", 3264),
    /** What bpf_find_vma's callback gets: vm_start, vm_end, vm_flags, vm_pgoff, vm_file (each 8 bytes). */
    VM_AREA_STRUCT("vm_area_struct", 192, 0, 8, 32, 80, 88);

    final String structName;
    final int size;
    private final int[] fields;

    BtfObject(String structName, int size, int... fields) {
        this.structName = structName;
        this.size = size;
        this.fields = fields;
    }

    static BtfObject of(long target) { return values()[(int) target]; }

    /** True when {@code [off, off + size)} lies inside one readable 8-byte field. */
    boolean readable(long off, int size) {
        for (int f : fields) if (off >= f && off + size <= f + 8) return true;
        return false;
    }
}
