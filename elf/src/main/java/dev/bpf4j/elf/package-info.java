/**
 * A bounds-checked reader of ELF64 little-endian files: relocatable BPF objects as
 * {@code clang -target bpf -c} writes them (header, section headers, {@code .symtab}, {@code SHT_REL}
 * sections) and x86-64 executables and shared objects (program headers, {@code .symtab},
 * {@code .dynsym}) for the symbolizer. Every offset, size and index is validated; malformed input
 * ends in an {@link dev.bpf4j.elf.ElfFormatException} whose message starts with the phase it
 * happened in ({@link dev.bpf4j.elf.ElfPhase}). The BPF object loader rewraps it as its own load error.
 */
package dev.bpf4j.elf;
