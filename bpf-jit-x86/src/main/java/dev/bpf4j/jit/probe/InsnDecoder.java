package dev.bpf4j.jit.probe;

/**
 * An x86-64 instruction length decoder: enough of the encoding (legacy prefixes, REX, the one-byte,
 * 0F, 0F38 and 0F3A maps, VEX and EVEX, ModRM/SIB/displacement, immediates) to find where each
 * instruction of a compiled function ends, which ones branch where, and which address memory
 * RIP-relative. It does not name instructions. Bytes it cannot place (opcodes invalid in 64-bit
 * mode, 16-bit branch forms, truncated input) give {@code null}: callers refuse rather than guess.
 */
final class InsnDecoder {
    private InsnDecoder() {}

    /** The immediate of the one-byte map: 0 none, 1 imm8, 2 imm16, 4 imm32 (imm16 with 66), 8 imm32/imm64 (B8-BF), 3 enter (imm16 + imm8). */
    private static final byte[] IMM1 = new byte[256];
    /** One-byte opcodes with a ModRM byte. */
    private static final boolean[] MODRM1 = new boolean[256];
    /** One-byte opcodes that do not exist in 64-bit mode (or are prefixes handled before the table). */
    private static final boolean[] INVALID1 = new boolean[256];

    static {
        for (int op = 0; op < 0x40; op++) {
            int low = op & 7;
            if (low < 4) MODRM1[op] = true;
            if (low == 4) IMM1[op] = 1;
            if (low == 5) IMM1[op] = 4;
        }
        for (int op : new int[]{0x06, 0x07, 0x0e, 0x16, 0x17, 0x1e, 0x1f, 0x27, 0x2f, 0x37, 0x3f, 0x60, 0x61, 0x82, 0x9a,
                0xc4, 0xc5, 0xce, 0xd4, 0xd5, 0xd6, 0xea}) INVALID1[op] = true;
        for (int op : new int[]{0x63, 0x69, 0x6b, 0x80, 0x81, 0x83, 0xc0, 0xc1, 0xc6, 0xc7, 0xd0, 0xd1, 0xd2, 0xd3, 0xf6, 0xf7, 0xfe, 0xff}) {
            MODRM1[op] = true;
        }
        for (int op = 0x84; op <= 0x8f; op++) MODRM1[op] = true;
        for (int op = 0xd8; op <= 0xdf; op++) MODRM1[op] = true;
        for (int op = 0x70; op <= 0x7f; op++) IMM1[op] = 1;
        for (int op = 0xb0; op <= 0xb7; op++) IMM1[op] = 1;
        for (int op = 0xb8; op <= 0xbf; op++) IMM1[op] = 8;
        for (int op : new int[]{0x6a, 0x6b, 0x80, 0x83, 0xa8, 0xc0, 0xc1, 0xc6, 0xcd, 0xe0, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xeb}) {
            IMM1[op] = 1;
        }
        for (int op : new int[]{0x68, 0x69, 0x81, 0xa9, 0xc7, 0xe8, 0xe9}) IMM1[op] = 4;
        IMM1[0xc2] = 2;
        IMM1[0xca] = 2;
        IMM1[0xc8] = 3;
    }

    /** How an instruction transfers control. */
    enum Flow {
        /** Falls through to the next instruction. */
        NEXT,
        /** jcc rel8 / rel32: to {@code target} or the next instruction. */
        COND,
        /** jmp rel8 / rel32: to {@code target}. */
        JUMP,
        /** call rel32. */
        CALL,
        /** loop, loope, loopne, jrcxz: rel8 only, no long form to relocate to. */
        LOOP,
        /** jmp through a register or memory (a jump table): targets unknown. */
        INDIRECT_JUMP,
        /** call through a register or memory. */
        INDIRECT_CALL,
        /** ret, iret, ud2, hlt, int3: no fall-through. */
        STOP
    }

    /**
     * One decoded instruction at {@code offset} of the decoded bytes.
     *
     * @param relAt     where its rel8/rel32 operand starts (branches), or -1
     * @param relSize   1 or 4 (branches), or 0
     * @param ripDispAt where its RIP-relative disp32 starts, or -1
     * @param opcode    the opcode byte (its map's, after any escape)
     * @param twoByte   the opcode is in the 0F map
     */
    record Insn(int offset, int length, Flow flow, int relAt, int relSize, int ripDispAt, int opcode, boolean twoByte) {
        /** The absolute target of a direct branch when the instruction sits at {@code address}. */
        long target(byte[] code, long address) {
            long next = address + length;
            int at = offset + relAt;
            long rel = relSize == 1 ? code[at] : readInt(code, at);
            return next + rel;
        }

        int end() { return offset + length; }
    }

    /** Decodes the instruction at {@code code[offset]}, or null when the bytes are not one this decoder knows. */
    static Insn decode(byte[] code, int offset) {
        try {
            Insn i = decode0(code, offset);
            return i == null || i.end() > code.length ? null : i;
        } catch (ArrayIndexOutOfBoundsException e) {
            return null; // truncated
        }
    }

    private static Insn decode0(byte[] code, int start) {
        int p = start;
        boolean opsize = false, addrsize = false;
        // legacy prefixes
        for (int n = 0; ; n++) {
            if (n > 14) return null;
            int b = code[p] & 0xff;
            if (b == 0x66) opsize = true;
            else if (b == 0x67) addrsize = true;
            else if (b != 0xf0 && b != 0xf2 && b != 0xf3 && b != 0x2e && b != 0x36 && b != 0x3e && b != 0x26 && b != 0x64 && b != 0x65) break;
            p++;
        }
        boolean rexW = false;
        if ((code[p] & 0xf0) == 0x40) {
            rexW = (code[p] & 8) != 0;
            p++;
        }
        int op = code[p++] & 0xff;
        if (op == 0xc4 || op == 0xc5 || op == 0x62) return vexOrEvex(code, start, p, op);
        if (op == 0x0f) return twoByte(code, start, p, opsize);
        if (INVALID1[op] || (op & 0xf0) == 0x40) return null;
        Flow flow = Flow.NEXT;
        int ripAt = -1;
        int reg = -1;
        if (MODRM1[op]) {
            reg = (code[p] >> 3) & 7;
            int[] m = modrm(code, p);
            ripAt = m[1];
            p = m[0];
        }
        int imm = IMM1[op];
        if (op == 0xf6 && reg <= 1) imm = 1;
        if (op == 0xf7 && reg <= 1) imm = 4;
        if (op >= 0xa0 && op <= 0xa3) imm = addrsize ? 4 : 8;   // moffs
        int immBytes = switch (imm) {
            case 1 -> 1;
            case 2 -> 2;
            case 3 -> 3;
            case 4 -> opsize && op != 0xe8 && op != 0xe9 ? 2 : 4;
            case 8 -> rexW ? 8 : opsize ? 2 : 4;
            default -> 0;
        };
        int relAt = -1, relSize = 0;
        if ((op >= 0x70 && op <= 0x7f) || op == 0xeb || op == 0xe9 || op == 0xe8 || (op >= 0xe0 && op <= 0xe3)) {
            if (opsize) return null;  // 16-bit branch forms: not emitted by compilers, behave differently on Intel and AMD
            relAt = p - start;
            relSize = immBytes;
            flow = op == 0xe8 ? Flow.CALL : op == 0xe9 || op == 0xeb ? Flow.JUMP : op <= 0x7f ? Flow.COND : Flow.LOOP;
        } else if (op == 0xff && (reg == 4 || reg == 5)) {
            flow = Flow.INDIRECT_JUMP;
        } else if (op == 0xff && (reg == 2 || reg == 3)) {
            flow = Flow.INDIRECT_CALL;
        } else if (op == 0xc3 || op == 0xc2 || op == 0xcb || op == 0xca || op == 0xcf || op == 0xcc || op == 0xf4) {
            flow = Flow.STOP;
        }
        p += immBytes;
        if (p > code.length) return null;
        return new Insn(start, p - start, flow, relAt, relSize, ripAt < 0 ? -1 : ripAt - start, op, false);
    }

    private static Insn twoByte(byte[] code, int start, int p, boolean opsize) {
        int op = code[p++] & 0xff;
        if (op == 0x38 || op == 0x3a) {
            p++;                                              // the third opcode byte
            int[] m = modrm(code, p);
            p = m[0] + (op == 0x3a ? 1 : 0);
            return new Insn(start, p - start, Flow.NEXT, -1, 0, m[1] < 0 ? -1 : m[1] - start, op, true);
        }
        if (op >= 0x80 && op <= 0x8f) {                       // jcc rel32
            if (opsize) return null;
            return new Insn(start, p + 4 - start, Flow.COND, p - start, 4, -1, op, true);
        }
        if (op == 0x0b || op == 0xff || op == 0xb9) {         // ud2, ud0, ud1: no fall-through
            if (op == 0x0b) return new Insn(start, p - start, Flow.STOP, -1, 0, -1, op, true);
            int[] m = modrm(code, p);
            return new Insn(start, m[0] - start, Flow.STOP, -1, 0, m[1] < 0 ? -1 : m[1] - start, op, true);
        }
        boolean noModrm = op == 0x05 || op == 0x06 || op == 0x07 || op == 0x08 || op == 0x09 || op == 0x0e || op == 0x77
                || (op >= 0x30 && op <= 0x37) || op == 0xa0 || op == 0xa1 || op == 0xa2 || op == 0xa8 || op == 0xa9 || op == 0xaa
                || (op >= 0xc8 && op <= 0xcf);
        if (op == 0x04 || op == 0x0a || op == 0x0c || op == 0x24 || op == 0x25 || op == 0x26 || op == 0x27 || op == 0x36
                || op == 0x39 || (op >= 0x3b && op <= 0x3f) || op == 0x7a || op == 0x7b) {
            return null;                                      // invalid or unused in 64-bit mode
        }
        if (noModrm) return new Insn(start, p - start, Flow.NEXT, -1, 0, -1, op, true);
        int[] m = modrm(code, p);
        p = m[0];
        boolean imm8 = (op >= 0x70 && op <= 0x73) || op == 0xa4 || op == 0xac || op == 0xba || op == 0xc2
                || (op >= 0xc4 && op <= 0xc6) || op == 0x0f;  // 0F 0F: 3DNow!, its opcode in the imm8 position
        if (imm8) p++;
        return new Insn(start, p - start, Flow.NEXT, -1, 0, m[1] < 0 ? -1 : m[1] - start, op, true);
    }

    /** C5 (2-byte VEX), C4 (3-byte VEX), 62 (EVEX): always these prefixes in 64-bit mode. */
    private static Insn vexOrEvex(byte[] code, int start, int p, int prefix) {
        int map;
        if (prefix == 0xc5) {
            map = 1;
            p += 1;
        } else if (prefix == 0xc4) {
            map = code[p] & 0x1f;
            p += 2;
        } else {
            map = code[p] & 0x07;
            p += 3;
        }
        int op = code[p++] & 0xff;
        if (map == 1 && (op == 0x77)) return new Insn(start, p - start, Flow.NEXT, -1, 0, -1, op, true); // vzeroupper/vzeroall
        if (map < 1 || map > 7 || map == 4) return null;
        int[] m = modrm(code, p);
        p = m[0];
        boolean imm8 = map == 3 || (map == 1 && ((op >= 0x70 && op <= 0x73) || op == 0xc2 || (op >= 0xc4 && op <= 0xc6)));
        if (imm8) p++;
        return new Insn(start, p - start, Flow.NEXT, -1, 0, m[1] < 0 ? -1 : m[1] - start, op, true);
    }

    /** Skips a ModRM byte and what it implies; returns {end, where a RIP-relative disp32 starts or -1}. */
    private static int[] modrm(byte[] code, int p) {
        int modrm = code[p++] & 0xff;
        int mod = modrm >> 6, rm = modrm & 7;
        int rip = -1;
        if (mod == 3) return new int[]{p, -1};
        if (rm == 4) {
            int sib = code[p++] & 0xff;
            if (mod == 0 && (sib & 7) == 5) p += 4;
        } else if (mod == 0 && rm == 5) {
            rip = p;
            p += 4;
        }
        if (mod == 1) p += 1;
        if (mod == 2) p += 4;
        if (p > code.length) throw new ArrayIndexOutOfBoundsException(p);
        return new int[]{p, rip};
    }

    static int readInt(byte[] b, int at) {
        return (b[at] & 0xff) | (b[at + 1] & 0xff) << 8 | (b[at + 2] & 0xff) << 16 | (b[at + 3] & 0xff) << 24;
    }
}
