package dev.bpf4j.interp;

import static dev.bpf4j.isa.Opcodes.*;

/**
 * The interpreter's pre-decoded instruction word, one long per slot so that the dispatch loop does
 * a single load per instruction: bits 0-7 opcode, 8-11 dst, 12-15 src, 16-31 off (signed), 32-63
 * imm (signed; for gotol and {@code call local} the resolved target pc). The opcode byte is the RFC 9669 one, except
 * for a few variants the decoder selects at load time, placed on opcode values that are invalid in
 * BPF and therefore can never come from a program.
 */
final class InsnCode {
    private InsnCode() {}

    /** r10 + constant loads/stores inside the current frame: no run-time check (mode bits 0 = IMM, invalid for LDX/ST/STX). */
    static final int STACK_LDX_B = LDX | B, STACK_LDX_H = LDX | H, STACK_LDX_W = LDX | W, STACK_LDX_DW = LDX | DW;
    static final int STACK_ST_B = ST | B, STACK_ST_H = ST | H, STACK_ST_W = ST | W, STACK_ST_DW = ST | DW;
    static final int STACK_STX_B = STX | B, STACK_STX_H = STX | H, STACK_STX_W = STX | W, STACK_STX_DW = STX | DW;

    /** Sign-extending moves (MOV X with a non-zero offset), on ALU op 0xe0, which RFC 9669 leaves undefined. */
    static final int MOVSX64 = ALU64 | 0xe0 | X, MOVSX32 = ALU | 0xe0 | X;

    /**
     * Superinstructions: {@code mov64 rX, rY} followed by a 64-bit ALU op on rX (immediate, or a
     * register Z other than X) becomes one 3-address op {@code rX = rY op K|rZ} in the mov's slot,
     * which then skips the next slot. The next slot keeps its own decoded word, so a jump into it
     * still runs it alone; Z is read from it (its src field). Placed on ST opcodes with modes
     * RFC 9669 does not define (ST and LDX modes the decoder rejects in a program).
     */
    static final int MOV_ADD_K = 0x22, MOV_ADD_X = 0x2a, MOV_SUB_K = 0x32, MOV_SUB_X = 0x3a,
            MOV_MUL_K = 0x42, MOV_MUL_X = 0x4a, MOV_OR_K = 0x52, MOV_OR_X = 0x5a,
            MOV_AND_K = 0x82, MOV_AND_X = 0x8a, MOV_LSH_K = 0x92, MOV_LSH_X = 0x9a,
            MOV_RSH_K = 0xa2, MOV_RSH_X = 0xaa, MOV_XOR_K = 0xb2, MOV_XOR_X = 0xba,
            MOV_ARSH_K = 0xc2, MOV_DIV_K = 0xca, MOV_MOD_K = 0xd2, MOV_DIV_X = 0xda,
            MOV_MOD_X = 0xe2;
    /** The same for {@code mov32 wX, wY} followed by a 32-bit ALU op with an immediate. */
    static final int MOV32_AND_K = 0xea, MOV32_ADD_K = 0xf2, MOV32_LSH_K = 0xfa, MOV32_RSH_K = 0x21;

    /**
     * Loop pairs (see {@link Superinstructions}): the first instruction's word with one of these
     * opcodes, the second half read from the next slot's own word. {@code rX = *(u32 *)(rY + off);
     * if wA <= wB goto} ({@code LDXW_JLE32_X}), two {@code *(u32 *)(rA + off) = rB}, {@code rA += K;
     * rB += K}, {@code wX = wY; if rA < rB goto}, {@code wX = wY; goto}. On LDX and STX opcodes with
     * modes RFC 9669 does not define (IND, ABS), which the decoder rejects in a program.
     */
    static final int LDXW_JLE32_X = 0x49, STXW_STXW = 0x23, ADD_ADD_K = 0x2b, MOV32_JLT_X = 0x33, MOV32_JA = 0x3b;
    /** {@code rX = *(u8 *)(rY + off); rA <<= K}: how clang assembles a big-endian field from bytes (LDX ABS B). */
    static final int LDXB_LSH_K = 0x31;

    /**
     * A {@code call bpf_map_lookup_elem} / {@code call bpf_map_update_elem} whose r1 is a constant
     * map the helper lets engines inline ({@link dev.bpf4j.helpers.MapHelperInlining}): the call's own word (src, imm =
     * helper id) with one of these opcodes, on JMP ops 0xe and 0xf, which RFC 9669 leaves undefined.
     * The driver runs the inline form, or calls the helper where it does not apply.
     */
    static final int INLINE_LOOKUP = JMP | 0xe0, INLINE_UPDATE = JMP | 0xf0;
    /**
     * {@link #INLINE_LOOKUP} on a plain (not per-CPU) ARRAY, which {@link HotLoop} runs itself, without
     * the round trip to the driver: imm indexes the map's open word, values base, max_entries and
     * stride, four constants after the trap slot (as an lddw's). On JMP32 op 0xe, undefined in RFC 9669.
     */
    static final int INLINE_ARRAY_LOOKUP = JMP32 | 0xe0;

    /** A slot that must never execute: the second half of an lddw, or past the end of the program. */
    static final int TRAP = 0xff;

    static long pack(int opcode, int dst, int src, int off, int imm) {
        return ((long) imm << 32) | (((opcode & 0xff) | (dst << 8) | (src << 12) | (off << 16)) & 0xffffffffL);
    }

    static int opcode(long w) { return (int) w & 0xff; }
    static int dst(long w) { return ((int) w >>> 8) & 0xf; }
    static int src(long w) { return ((int) w >>> 12) & 0xf; }
    static int off(long w) { return (int) w >> 16; }
    static int imm(long w) { return (int) (w >> 32); }
}
