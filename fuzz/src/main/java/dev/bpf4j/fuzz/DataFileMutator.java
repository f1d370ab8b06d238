package dev.bpf4j.fuzz;

import dev.bpf4j.conformance.DataFile;
import dev.bpf4j.asm.Assembler;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.runtime.BpfException;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static dev.bpf4j.isa.Opcodes.*;

/**
 * Mutates the programs of existing conformance {@code .data} files: the seed picks a file and a few
 * mutations — flip a bit of a slot, change an immediate or offset to an edge value, swap the
 * operation/size/source of an opcode for another of its class, change a register, duplicate, delete
 * or swap slots, resize or re-fill the memory block. Files that cannot be parsed are left out.
 */
public final class DataFileMutator implements ProgramGenerator {
    private record Seed(String name, List<Insn> insns, byte[] mem) {}

    private final List<Seed> seeds = new ArrayList<>();

    private final boolean replay;

    public DataFileMutator(List<Path> files) { this(files, false); }

    /**
     * {@code replay}: no mutation, program {@code seed} is the file of that index (modulo their
     * number), in name order: runs a directory of reproducers once each.
     */
    public DataFileMutator(List<Path> files, boolean replay) {
        this.replay = replay;
        for (Path f : files) {
            try {
                DataFile d = DataFile.read(f);
                if (d.skipped()) continue;
                List<Insn> insns = d.asm().isPresent() ? Assembler.assemble(d.asm().get())
                        : d.rawBytes().map(b -> Arrays.asList(Insn.decodeAll(b))).orElse(null);
                if (insns == null || insns.isEmpty()) continue;
                seeds.add(new Seed(f.getFileName().toString(), insns, d.mem().orElse(null)));
            } catch (BpfException | UncheckedIOException | IllegalArgumentException e) {
                // not a usable seed
            }
        }
        if (seeds.isEmpty()) throw new IllegalArgumentException("no usable .data file among " + files.size() + " files");
    }

    public int corpusSize() { return seeds.size(); }

    @Override public String name() { return replay ? "replay" : "mutate"; }

    @Override public FuzzCase generate(long seed) {
        if (replay) {
            Seed s = seeds.get((int) Math.floorMod(seed, (long) seeds.size()));
            return new FuzzCase(s.name(), s.insns(), s.mem());
        }
        Random rnd = new Random(seed);
        Seed s = seeds.get(rnd.nextInt(seeds.size()));
        List<Insn> insns = new ArrayList<>(s.insns());
        byte[] mem = s.mem() == null ? null : s.mem().clone();
        int mutations = 1 + rnd.nextInt(3);
        for (int m = 0; m < mutations; m++) {
            int pc = rnd.nextInt(insns.size());
            Insn i = insns.get(pc);
            switch (rnd.nextInt(10)) {
                case 0 -> {
                    long raw = i.toRaw() ^ (1L << rnd.nextInt(64));
                    byte[] b = new byte[8];
                    for (int k = 0; k < 8; k++) b[k] = (byte) (raw >>> (8 * k));
                    insns.set(pc, Insn.decode(b, 0));
                }
                case 1, 2 -> insns.set(pc, InsnChoices.withImm(i, InsnChoices.imm(rnd)));
                case 3 -> insns.set(pc, InsnChoices.withOff(i, (short) (new int[] {0, 1, -1, 8, -8, -512, -513, 511, 32767, -32768}[rnd.nextInt(10)]
                        + (rnd.nextBoolean() ? i.off() : 0))));
                case 4 -> insns.set(pc, new Insn(sibling(rnd, i.opcode()), i.dst(), i.src(), i.off(), i.imm()));
                case 5 -> insns.set(pc, new Insn(i.opcode(), rnd.nextInt(11), i.src(), i.off(), i.imm()));
                case 6 -> insns.set(pc, new Insn(i.opcode(), i.dst(), rnd.nextInt(11), i.off(), i.imm()));
                case 7 -> insns.add(pc, i);
                case 8 -> { if (insns.size() > 1) insns.remove(pc); }
                default -> {
                    if (mem != null && rnd.nextBoolean()) {
                        mem = Arrays.copyOf(mem, Math.max(1, mem.length + rnd.nextInt(17) - 8));
                    } else {
                        int other = rnd.nextInt(insns.size());
                        insns.set(pc, insns.get(other));
                        insns.set(other, i);
                    }
                }
            }
        }
        return new FuzzCase(name() + " seed " + seed + " of " + s.name(), insns, mem);
    }

    /** Another opcode of the same class: a different operation, size, mode or source bit. */
    private static int sibling(Random rnd, int opcode) {
        int cls = cls(opcode);
        if (cls == ALU || cls == ALU64 || cls == JMP || cls == JMP32) {
            return rnd.nextBoolean() ? cls | (rnd.nextInt(16) << 4) | source(opcode) : opcode ^ X;
        }
        return rnd.nextBoolean() ? cls | mode(opcode) | InsnChoices.SIZES[rnd.nextInt(4)]
                : cls | new int[] {IMM, ABS, IND, MEM, MEMSX, ATOMIC}[rnd.nextInt(6)] | size(opcode);
    }
}
