package dev.bpf4j.elf;

/** Which ELF files a caller accepts: the header's machine and type are checked against it first. */
public enum ElfKind {
    /** A relocatable BPF object from {@code clang -target bpf -c} (libbpf also accepts EM_NONE, which old LLVM wrote). */
    BPF_OBJECT,
    /** An x86-64 executable or shared object, as the dynamic loader maps it into this process. */
    NATIVE_X86_64;

    static final int EM_NONE = 0, EM_X86_64 = 62, EM_BPF = 247;
    static final int ET_REL = 1, ET_EXEC = 2, ET_DYN = 3;

    void check(int type, int machine) {
        switch (this) {
            case BPF_OBJECT:
                if (machine != EM_BPF && machine != EM_NONE) throw ElfPhase.error("machine %d is not EM_BPF (247): not a BPF object", machine);
                if (type != ET_REL) throw ElfPhase.error("ELF type %d is not ET_REL: expected a relocatable object from clang -c", type);
                break;
            case NATIVE_X86_64:
                if (machine != EM_X86_64) throw ElfPhase.error("machine %d is not EM_X86_64 (62)", machine);
                if (type != ET_DYN && type != ET_EXEC) throw ElfPhase.error("ELF type %d is neither ET_DYN nor ET_EXEC", type);
                break;
            default:
                throw new AssertionError(this);
        }
    }
}
