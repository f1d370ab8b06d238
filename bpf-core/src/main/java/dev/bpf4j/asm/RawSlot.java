package dev.bpf4j.asm;

import dev.bpf4j.isa.InsnSet;
import dev.bpf4j.isa.Insn;

/** Formats a slot as a {@code .byte} line, for what a printer cannot (or must not) express symbolically. */
final class RawSlot {
    private RawSlot() {}

    static String bytes(Insn insn) {
        byte[] b = new byte[Insn.SIZE];
        insn.encode(b, 0);
        StringBuilder sb = new StringBuilder(".byte ");
        for (int i = 0; i < b.length; i++) {
            if (i > 0) sb.append(", ");
            sb.append(String.format("0x%02x", b[i] & 0xff));
        }
        return sb.toString();
    }

    /** Why {@code insn} (at {@code pc} of {@code code}) has no symbolic form. */
    static String reason(Insn[] code, int pc) {
        Insn insn = code[pc];
        if (insn.isLddw() && pc + 1 >= code.length) return "lddw without its second slot";
        if (InsnSet.encodingsOf(insn.opcode()).isEmpty()) return String.format("invalid opcode 0x%02x", insn.opcode());
        return String.format("invalid fields for opcode 0x%02x (dst=%d src=%d off=%d imm=%d)", insn.opcode(), insn.dst(), insn.src(), insn.off(), insn.imm());
    }
}
