package dev.bpf4j.jit.probe;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The instructions at a patch site that the 5-byte {@code call} overwrites (whole instructions:
 * {@link #length} is 5 or more), and their copy for another address — what Linux's optprobes call
 * the detour buffer: the same instructions with RIP-relative displacements and branches relocated
 * (short {@code jcc}/{@code jmp} widened to rel32), then a {@code jmp} back to the first byte
 * after them. The copy runs with every register and the stack exactly as at the function's entry.
 *
 * <p>Refused with the reason: an instruction the decoder does not know, a {@code call} (its return
 * address would point into the copy), {@code loop}/{@code jrcxz} (rel8 only), an {@code int3}
 * (another tool's breakpoint), a RIP-relative operand or branch target out of rel32 reach of the copy.
 */
final class DisplacedInsns {
    private static final int JMP_REL32 = 5, JCC_REL32 = 6;

    private final String name;
    private final long site;
    private final byte[] code;
    private final List<InsnDecoder.Insn> insns;
    private final int length;

    private DisplacedInsns(String name, long site, byte[] code, List<InsnDecoder.Insn> insns, int length) {
        this.name = name;
        this.site = site;
        this.code = code;
        this.insns = insns;
        this.length = length;
    }

    /** Decodes whole instructions from {@code code} (read at {@code site}) until they cover {@code PatchSite.LENGTH} bytes. */
    static DisplacedInsns decode(String name, long site, byte[] code) {
        List<InsnDecoder.Insn> out = new ArrayList<>();
        int at = 0;
        while (at < PatchSite.LENGTH) {
            InsnDecoder.Insn i = InsnDecoder.decode(code, at);
            if (i == null) throw refuse(name, site, String.format("cannot decode the instruction at 0x%x (%s)", site + at, hex(code, at, 8)));
            if ((code[at] & 0xff) == 0xcc) throw refuse(name, site, String.format("an int3 at 0x%x: a breakpoint of another tool", site + at));
            if (i.flow() == InsnDecoder.Flow.CALL || i.flow() == InsnDecoder.Flow.INDIRECT_CALL) {
                throw refuse(name, site, String.format("a call among the first 5 bytes (at 0x%x: %s): its return address would point into the copy",
                        site + at, hex(code, at, i.length())));
            }
            if (i.flow() == InsnDecoder.Flow.LOOP) {
                throw refuse(name, site, String.format("a loop/jrcxz among the first 5 bytes (at 0x%x): it has no rel32 form to relocate to", site + at));
            }
            out.add(i);
            at = i.end();
        }
        return new DisplacedInsns(name, site, code, out, at);
    }

    static IllegalArgumentException refuse(String name, long site, String why) {
        return new IllegalArgumentException(String.format("cannot probe '%s' at 0x%x: %s", name, site, why));
    }

    /** Bytes the displaced instructions cover (5 or more). */
    int length() { return length; }

    List<InsnDecoder.Insn> insns() { return insns; }

    /** The original bytes of the displaced instructions. */
    byte[] original() { return java.util.Arrays.copyOf(code, length); }

    /** An upper bound of {@link #copy}'s size. */
    int copySize() {
        int n = JMP_REL32;
        for (InsnDecoder.Insn i : insns) n += i.relSize() == 1 ? JCC_REL32 : i.length();
        return n;
    }

    /** Where each displaced instruction starts in {@link #copy} (widened branches move the later ones). */
    int[] copyOffsets() {
        int[] out = new int[insns.size()];
        int at = 0;
        for (int k = 0; k < out.length; k++) {
            out[k] = at;
            InsnDecoder.Insn i = insns.get(k);
            at += i.relSize() == 1 ? (i.flow() == InsnDecoder.Flow.JUMP ? JMP_REL32 : JCC_REL32) : i.length();
        }
        return out;
    }

    /** The relocated copy for address {@code at}, ending with {@code jmp site + length}. */
    byte[] copy(long at) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (InsnDecoder.Insn i : insns) {
            long from = site + i.offset();
            long here = at + out.size();
            if (i.relSize() == 1) {                           // jcc/jmp rel8: widened
                long target = i.target(code, from);
                if (i.flow() == InsnDecoder.Flow.JUMP) {
                    out.write(0xe9);                          /* jmp rel32 */
                    int32(out, rel(target, here + JMP_REL32, from));
                } else {
                    out.write(0x0f);                          /* jcc rel32: 0F 80+cc */
                    out.write(0x80 | (i.opcode() & 0x0f));
                    int32(out, rel(target, here + JCC_REL32, from));
                }
                continue;
            }
            byte[] b = java.util.Arrays.copyOfRange(code, i.offset(), i.end());
            if (i.relSize() == 4) {                           // jcc/jmp rel32
                long target = i.target(code, from);
                put32(b, i.relAt(), rel(target, here + i.length(), from));
            } else if (i.ripDispAt() >= 0) {                  // RIP-relative operand
                long target = from + i.length() + InsnDecoder.readInt(code, i.offset() + i.ripDispAt());
                put32(b, i.ripDispAt(), rel(target, here + i.length(), from));
            }
            out.write(b, 0, b.length);
        }
        long here = at + out.size();
        out.write(0xe9);                                      /* jmp site + length */
        int32(out, rel(site + length, here + JMP_REL32, site + length));
        return out.toByteArray();
    }

    private int rel(long target, long next, long insn) {
        long r = target - next;
        if (r != (int) r) {
            throw refuse(name, site, String.format("the instruction at 0x%x refers to 0x%x, out of rel32 reach of its copy at 0x%x", insn, target, next));
        }
        return (int) r;
    }

    private static void int32(java.io.ByteArrayOutputStream out, int v) {
        for (int k = 0; k < 4; k++) out.write(v >>> (8 * k));
    }

    private static void put32(byte[] b, int at, int v) {
        for (int k = 0; k < 4; k++) b[at + k] = (byte) (v >>> (8 * k));
    }

    static String hex(byte[] b, int from, int n) {
        return HexFormat.ofDelimiter(" ").formatHex(b, from, Math.min(b.length, from + n));
    }
}
