package dev.bpf4j.btf;

/** A {@code bpf_func_info} record: the function starting at instruction {@code insnIndex} and its BTF FUNC type. */
public record FuncInfo(int insnIndex, int typeId, String name) {
    public FuncInfo rebase(int newIndex) { return new FuncInfo(newIndex, typeId, name); }
}
