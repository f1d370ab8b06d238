/**
 * A bounds-checked reader of relocatable ELF64 little-endian files, as {@code clang -target bpf -c}
 * writes them: header, section headers, {@code .symtab} and {@code SHT_REL} sections. Every offset,
 * size and index is validated; malformed input ends in a {@link dev.bpf4j.runtime.BpfLoadException}
 * whose message starts with the phase it happened in ({@link dev.bpf4j.elf.LoadPhase}).
 */
package dev.bpf4j.elf;
