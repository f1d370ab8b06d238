package dev.bpf4j.isa;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Instances of every {@link InsnEncoding} with random operands (and zero in every unused field). */
public final class Samples {
    private Samples() {}

    /** The slots of one random instance of {@code f} (two for lddw). */
    public static List<Insn> of(InsnEncoding f, Random r) {
        int dst = r.nextInt(11), src = r.nextInt(11), off = (short) r.nextInt(), imm = r.nextInt();
        long imm64 = r.nextLong();
        if (r.nextBoolean()) { off = r.nextInt(64) - 32; imm = r.nextInt(64) - 32; }
        List<Insn> out = new ArrayList<>();
        switch (f.shape()) {
            case ALU_REG, MOVSX -> out.add(f.encode(dst, src, 0, 0));
            case ALU_IMM -> out.add(f.encode(dst, 0, 0, imm));
            case ALU_UNARY, END, CALLX -> out.add(f.encode(dst, 0, 0, 0));
            case LDDW -> {
                // Only map values (src 2, 6) give the second imm a meaning besides src 0.
                boolean hasNext = f.src() == 0 || f.src() == Opcodes.PSEUDO_MAP_VALUE || f.src() == Opcodes.PSEUDO_MAP_IDX_VALUE;
                out.add(f.encode(dst, 0, 0, (int) imm64));
                out.add(new Insn(0, 0, 0, 0, hasNext ? (int) (imm64 >>> 32) : 0));
            }
            case LD_ABS -> out.add(f.encode(0, 0, 0, imm));
            case LD_IND -> out.add(f.encode(0, src, 0, imm));
            case LDX -> out.add(f.encode(dst, src, off, 0));
            case ST -> out.add(f.encode(dst, 0, off, imm));
            case STX, ATOMIC -> out.add(f.encode(dst, src, off, 0));
            case JA -> out.add(f.encode(0, 0, off, 0));
            case GOTOL, CALL -> out.add(f.encode(0, 0, 0, imm));
            case JCOND_IMM -> out.add(f.encode(dst, 0, off, imm));
            case JCOND_REG -> out.add(f.encode(dst, src, off, 0));
            case EXIT -> out.add(f.encode(0, 0, 0, 0));
        }
        return out;
    }

    /** Several instances of every form, concatenated. */
    public static List<Insn> everyForm(long seed, int perForm) {
        Random r = new Random(seed);
        List<Insn> out = new ArrayList<>();
        for (InsnEncoding f : InsnSet.encodings()) for (int k = 0; k < perForm; k++) out.addAll(of(f, r));
        return out;
    }
}
