package dev.bpf4j.isa;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One 8-byte eBPF instruction slot (RFC 9669 section 3): opcode, dst and src registers, a signed
 * 16-bit offset and a signed 32-bit immediate. A wide instruction ({@code lddw}) occupies two
 * slots; the second slot has opcode 0 and carries the upper 32 bits of the immediate in its imm.
 * Program counters always count slots, as the kernel does.
 */
public record Insn(int opcode, int dst, int src, int off, int imm) {
    public static final int SIZE = 8;

    public Insn {
        if ((opcode & ~0xff) != 0) throw new IllegalArgumentException("opcode out of range: " + opcode);
        if ((dst & ~0xf) != 0) throw new IllegalArgumentException("dst register out of range: " + dst);
        if ((src & ~0xf) != 0) throw new IllegalArgumentException("src register out of range: " + src);
        if (off < Short.MIN_VALUE || off > Short.MAX_VALUE) throw new IllegalArgumentException("offset out of range: " + off);
    }

    public int cls() { return Opcodes.cls(opcode); }

    /** True for the first slot of a 64-bit immediate load. */
    public boolean isLddw() { return opcode == Opcodes.LDDW; }

    /** The 64-bit immediate of an lddw whose second slot is {@code next}. */
    public long imm64(Insn next) { return (imm & 0xffffffffL) | ((long) next.imm << 32); }

    /** Target slot of this instruction at {@code pc} when it is a JA or a conditional jump (gotol: imm); -1 for anything else. */
    public int jumpTarget(int pc) {
        int cls = cls();
        if (cls != Opcodes.JMP && cls != Opcodes.JMP32) return -1;
        int op = Opcodes.op(opcode);
        if (op == Opcodes.CALL || op == Opcodes.EXIT) return -1;
        if (op == Opcodes.JA && cls == Opcodes.JMP32) return pc + 1 + imm; // gotol
        return pc + 1 + off;
    }

    /** Encodes this slot as 8 little-endian bytes into {@code buf} at {@code pos}. */
    public void encode(byte[] buf, int pos) {
        buf[pos] = (byte) opcode;
        buf[pos + 1] = (byte) ((src << 4) | dst);
        buf[pos + 2] = (byte) off;
        buf[pos + 3] = (byte) (off >> 8);
        buf[pos + 4] = (byte) imm;
        buf[pos + 5] = (byte) (imm >> 8);
        buf[pos + 6] = (byte) (imm >> 16);
        buf[pos + 7] = (byte) (imm >> 24);
    }

    public long toRaw() {
        byte[] b = new byte[SIZE];
        encode(b, 0);
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    /** Decodes the slot at {@code pos}; the caller checks that 8 bytes are there. */
    public static Insn decode(byte[] buf, int pos) {
        int opcode = buf[pos] & 0xff;
        int regs = buf[pos + 1] & 0xff;
        int off = (short) ((buf[pos + 2] & 0xff) | (buf[pos + 3] << 8));
        int imm = (buf[pos + 4] & 0xff) | ((buf[pos + 5] & 0xff) << 8) | ((buf[pos + 6] & 0xff) << 16) | (buf[pos + 7] << 24);
        return new Insn(opcode, regs & 0xf, regs >>> 4, off, imm);
    }

    /** Decodes a whole program; the length must be a multiple of 8. */
    public static Insn[] decodeAll(byte[] buf) {
        if (buf.length % SIZE != 0) {
            throw new IllegalArgumentException("bytecode length " + buf.length + " is not a multiple of 8 (truncated instruction at byte " + (buf.length / SIZE * SIZE) + ")");
        }
        Insn[] out = new Insn[buf.length / SIZE];
        for (int i = 0; i < out.length; i++) out[i] = decode(buf, i * SIZE);
        return out;
    }

    public static byte[] encodeAll(Insn[] insns) {
        byte[] out = new byte[insns.length * SIZE];
        for (int i = 0; i < insns.length; i++) insns[i].encode(out, i * SIZE);
        return out;
    }

    @Override public String toString() {
        return String.format("Insn{op=0x%02x dst=r%d src=r%d off=%d imm=%d}", opcode, dst, src, off, imm);
    }
}
