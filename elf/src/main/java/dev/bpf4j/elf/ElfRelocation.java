package dev.bpf4j.elf;

/** One {@code Elf64_Rel} entry: the byte offset it patches in the target section, its symbol and type. */
public record ElfRelocation(long offset, int symbolIndex, int type) {
    // BPF relocation types (llvm/BinaryFormat/ELFRelocs/BPF.def).
    public static final int R_BPF_NONE = 0, R_BPF_64_64 = 1, R_BPF_64_ABS64 = 2, R_BPF_64_ABS32 = 3,
            R_BPF_64_NODYLD32 = 4, R_BPF_64_32 = 10;

    public static String typeName(int type) {
        switch (type) {
            case R_BPF_NONE: return "R_BPF_NONE";
            case R_BPF_64_64: return "R_BPF_64_64";
            case R_BPF_64_ABS64: return "R_BPF_64_ABS64";
            case R_BPF_64_ABS32: return "R_BPF_64_ABS32";
            case R_BPF_64_NODYLD32: return "R_BPF_64_NODYLD32";
            case R_BPF_64_32: return "R_BPF_64_32";
            default: return "relocation type " + type;
        }
    }
}
