package dev.bpf4j.jit;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

/**
 * The kernel's program tag ({@code bpf_prog_calc_tag}): the first 8 bytes of SHA-1 over the
 * instructions, with the immediates of map-referencing {@code lddw} slots zeroed so the tag does
 * not depend on fd numbers. Printed as 16 hex digits, as bpftool and kallsyms show it.
 */
public final class ProgramTag {
    private ProgramTag() {}

    public static String of(List<Insn> insns) {
        byte[] raw = new byte[insns.size() * Insn.SIZE];
        boolean wasLdMap = false;
        for (int i = 0; i < insns.size(); i++) {
            Insn in = insns.get(i);
            if (!wasLdMap && in.opcode() == Opcodes.LDDW
                    && (in.src() == Opcodes.PSEUDO_MAP_FD || in.src() == Opcodes.PSEUDO_MAP_VALUE)) {
                wasLdMap = true;
                in = new Insn(in.opcode(), in.dst(), in.src(), in.off(), 0);
            } else if (wasLdMap && in.opcode() == 0 && in.dst() == 0 && in.src() == 0 && in.off() == 0) {
                wasLdMap = false;
                in = new Insn(0, 0, 0, 0, 0);
            } else {
                wasLdMap = false;
            }
            in.encode(raw, i * Insn.SIZE);
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(raw);
            StringBuilder s = new StringBuilder(16);
            for (int i = 0; i < 8; i++) s.append(String.format("%02x", digest[i] & 0xff));
            return s.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is not available", e);
        }
    }
}
