package dev.bpf4j.jit;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The kernel's program tag ({@code bpf_prog_calc_tag}): the first 8 bytes of a digest over the
 * instructions, with the immediates of map-referencing {@code lddw} slots zeroed so the tag does
 * not depend on fd numbers. Printed as 16 hex digits, as bpftool and kallsyms show it.
 * Linux up to 6.17 digests with SHA-1; Linux 6.18 (the kernel on the bpf4j machines, checked with
 * {@code BPF_OBJ_GET_INFO_BY_FD}) uses SHA-256, which is the default here.
 *
 * <p>In kallsyms the main function carries the tag of the whole program, and each subprogram
 * ({@code bpf_prog_<tag>_F}) the tag of its own slots as the verifier leaves them for the JIT: every
 * {@code call local} rewritten to {@code off = callee's subprogram index, imm = 1} (checked against
 * /proc/kallsyms on Linux 6.18). See {@link #ofSubprogram}.
 */
public final class ProgramTag {
    private ProgramTag() {}

    /** The digest behind the tag. */
    public enum Algorithm {
        /** Linux before 6.18. */
        SHA1("SHA-1"),
        /** Linux 6.18 and later. */
        SHA256("SHA-256");

        final String jca;

        Algorithm(String jca) { this.jca = jca; }
    }

    public static final Algorithm DEFAULT = Algorithm.SHA256;

    public static String of(List<Insn> insns) { return of(insns, DEFAULT); }

    /**
     * The kallsyms tag of the subprogram {@code [start, end)} of {@code program}, whose functions start
     * at {@code functionStarts} (sorted; index = the kernel's subprogram number).
     */
    public static String ofSubprogram(List<Insn> program, int start, int end, int[] functionStarts) {
        List<Insn> slots = new ArrayList<>(program.subList(start, end));
        for (int i = 0; i < slots.size(); i++) {
            Insn in = slots.get(i);
            if (in.opcode() == (Opcodes.JMP | Opcodes.CALL) && in.src() == Opcodes.PSEUDO_CALL) {
                int target = start + i + 1 + in.imm();
                int index = Arrays.binarySearch(functionStarts, target);
                slots.set(i, new Insn(in.opcode(), in.dst(), in.src(), Math.max(index, 0), 1));
            }
            if (in.isLddw()) i++;
        }
        return of(slots);
    }

    public static String of(List<Insn> insns, Algorithm algorithm) {
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
            byte[] digest = MessageDigest.getInstance(algorithm.jca).digest(raw);
            StringBuilder s = new StringBuilder(16);
            for (int i = 0; i < 8; i++) s.append(String.format("%02x", digest[i] & 0xff));
            return s.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(algorithm.jca + " is not available", e);
        }
    }
}
