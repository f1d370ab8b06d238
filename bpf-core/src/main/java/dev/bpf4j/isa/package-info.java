/**
 * The RFC 9669 instruction set, cpu v1-v4: encoding and the semantics of each operation. The text
 * assembler, disassembler and {@code ProgramBuilder} are in {@code dev.bpf4j.asm}.
 *
 * <ul>
 *   <li>{@link dev.bpf4j.isa.Insn} / {@link dev.bpf4j.isa.Opcodes}: one 8-byte slot and the opcode fields.</li>
 *   <li>{@link dev.bpf4j.isa.InsnSet}: the single table of valid instruction forms
 *       ({@link dev.bpf4j.isa.InsnEncoding}: opcode, operand {@link dev.bpf4j.isa.Shape}, fixed off/imm/src,
 *       conformance mnemonic, llvm operator). {@code InsnSet.encodingOf(insn)} / {@code isValid(insn)} /
 *       {@code isValidOpcode(byte)} answer "does this name an instruction"; reserved-field and register
 *       checks are the validator's.</li>
 * </ul>
 */
package dev.bpf4j.isa;
