/**
 * Building and printing programs (on top of {@code dev.bpf4j.isa} and {@code dev.bpf4j.program}).
 *
 * <ul>
 *   <li>{@link dev.bpf4j.asm.Assembler}: the bpf_conformance / uBPF text syntax →
 *       slots. {@link dev.bpf4j.asm.AsmPrinter}: slots → that syntax (round-trips every slot).</li>
 *   <li>{@link dev.bpf4j.asm.Disassembler}: slots → llvm-objdump syntax.</li>
 *   <li>{@link dev.bpf4j.asm.ProgramBuilder}: a Java DSL with labels.</li>
 * </ul>
 *
 * <h2>Assembler syntax</h2>
 * One instruction per line; {@code #} starts a comment; {@code name:} defines a label (alone or before an
 * instruction); the first {@code exit} is an implicit label {@code exit}. Registers {@code %r0}..{@code %r10}
 * or {@code r0}..{@code r10} ({@code r11}-{@code r15} assemble, for negative tests). Numbers: decimal or
 * {@code 0x} hex, optional sign; 32-bit immediates accept [-2^31, 2^32-1] (upper half wraps), offsets
 * [-32768, 65535] (upper half wraps, as the suites' uint16 does).
 * <pre>
 * ALU      add sub mul div sdiv or and lsh rsh mod smod xor mov arsh [32]  dst, src|imm   (64 suffix accepted)
 *          neg neg32 dst;  movsx864 movsx1664 movsx3264 movsx832 movsx1632 dst, src
 *          le16 le32 le64 be16 be32 be64 bswap16 bswap32 bswap64 dst  (swapNN accepted)
 * lddw     lddw dst, imm64 | map_by_fd(x) | map_val(map_by_fd(x)) + n | var_addr(x) | code_addr(x)
 *          | map_by_idx(x) | map_val(map_by_idx(x)) + n ;  ld_pseudo dst, src, imm64 (llvm style)
 * memory   ldxb ldxh ldxw ldxdw dst, [src+off];  ldxsb ldxsh ldxsw dst, [src+off] (ldxbsx... accepted)
 *          stb sth stw stdw [dst+off], imm;  stxb stxh stxw stxdw [dst+off], src
 *          ldabsb/h/w imm;  ldindb/h/w src, imm  (legacy packet loads)
 * atomics  lock [fetch] add|or|and|xor[32] [dst+off], src;  lock xchg[32] / lock cmpxchg[32] [dst+off], src
 * jumps    ja target;  ja32 target (gotol, 32-bit imm offset);  jeq jgt jge jlt jle jset jne jsgt jsge jslt jsle[32]
 *          dst, src|imm, target   where target is a label or +N / -N slots
 * calls    call N | call helper N | call name (via AsmSymbols) | call local label|+N | call runtime N | call %rN (callx)
 * other    exit;  .byte b0, ..., b7  (one raw slot)
 * </pre>
 */
package dev.bpf4j.asm;
