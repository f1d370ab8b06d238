package dev.bpf4j.fuzz;

import dev.bpf4j.isa.Insn;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import static dev.bpf4j.isa.Opcodes.*;

/**
 * Delta debugging over a program that shows a mismatch: removes chunks of instructions (halves,
 * quarters, ... single ones; an lddw's two slots always together) with every jump and call offset
 * re-aimed so that the program stays well formed, narrows {@code lddw} to {@code mov}, replaces the
 * remaining instructions (helper calls too) by {@code mov r0, 0}, shrinks immediates (0, 1, halves) and the memory block — keeping each step only
 * when {@code stillShows} still holds. Stops at a fixpoint or after {@code maxTries} evaluations.
 */
public final class Minimiser {
    private final Predicate<FuzzCase> stillShows;
    private final int maxTries;
    private int tries;

    public Minimiser(Predicate<FuzzCase> stillShows, int maxTries) {
        this.stillShows = stillShows;
        this.maxTries = maxTries;
    }

    /** How many candidates the last {@link #minimise} evaluated. */
    public int tries() { return tries; }

    public FuzzCase minimise(FuzzCase c) {
        tries = 0;
        FuzzCase best = c;
        boolean progress = true;
        while (progress && tries < maxTries) {
            progress = false;
            FuzzCase next = removeChunks(best);
            next = narrowLddw(next);
            next = replaceByMovR0(next);
            next = shrinkImmediates(next);
            next = shrinkMemory(next);
            if (differs(next, best)) {
                progress = true;
                best = next;
            }
        }
        return best;
    }

    private static boolean differs(FuzzCase a, FuzzCase b) {
        return !a.insns().equals(b.insns()) || !java.util.Arrays.equals(a.mem(), b.mem());
    }

    private boolean test(FuzzCase c) {
        if (tries >= maxTries) return false;
        tries++;
        return stillShows.test(c);
    }

    private FuzzCase removeChunks(FuzzCase c) {
        for (int chunk = Math.max(1, units(c.insns()).size() / 2); chunk >= 1; chunk /= 2) {
            int u = 0;
            while (true) {
                List<int[]> units = units(c.insns());
                if (u >= units.size()) break;
                int from = units.get(u)[0];
                int to = units.get(Math.min(units.size(), u + chunk) - 1)[1];
                FuzzCase candidate = c.withInsns(remove(c.insns(), from, to));
                if (!candidate.insns().isEmpty() && test(candidate)) c = candidate;
                else u += chunk;
            }
            if (chunk == 1) break;
        }
        return c;
    }

    /** {@code lddw dst, v} (two slots) becomes {@code mov dst, v} (one) where v fits 32 bits signed, else {@code mov dst, 0}. */
    private FuzzCase narrowLddw(FuzzCase c) {
        for (int pc = 0; pc + 1 < c.length(); pc++) {
            Insn i = c.insns().get(pc);
            if (!i.isLddw() || i.src() != PSEUDO_IMM64) continue;
            long v = i.imm64(c.insns().get(pc + 1));
            List<Insn> l = new ArrayList<>(remove(c.insns(), pc + 1, pc + 1));
            l.set(pc, new Insn(ALU64 | MOV | K, i.dst(), 0, 0, v == (int) v ? (int) v : 0));
            FuzzCase candidate = c.withInsns(l);
            if (test(candidate)) c = candidate;
        }
        return c;
    }

    private FuzzCase replaceByMovR0(FuzzCase c) {
        Insn mov = new Insn(ALU64 | MOV | K, 0, 0, 0, 0);
        for (int pc = 0; pc < c.length(); pc++) {
            Insn i = c.insns().get(pc);
            boolean helperCall = i.opcode() == (JMP | CALL) && i.src() == CALL_HELPER;
            if (i.equals(mov) || i.isLddw() || isControl(i) && !helperCall || pc > 0 && c.insns().get(pc - 1).isLddw()) continue;
            List<Insn> l = new ArrayList<>(c.insns());
            l.set(pc, mov);
            FuzzCase candidate = c.withInsns(l);
            if (test(candidate)) c = candidate;
        }
        return c;
    }

    private FuzzCase shrinkImmediates(FuzzCase c) {
        for (int pc = 0; pc < c.length(); pc++) {
            Insn i = c.insns().get(pc);
            if (!immIsOperand(i)) continue;
            for (int smaller : new int[] {0, 1, i.imm() / 2}) {
                if (Math.abs((long) smaller) >= Math.abs((long) i.imm())) continue;
                List<Insn> l = new ArrayList<>(c.insns());
                l.set(pc, InsnChoices.withImm(i, smaller));
                FuzzCase candidate = c.withInsns(l);
                if (test(candidate)) {
                    c = candidate;
                    break;
                }
            }
        }
        return c;
    }

    private FuzzCase shrinkMemory(FuzzCase c) {
        byte[] mem = c.mem();
        if (mem == null) return c;
        FuzzCase none = c.withMem(null);
        if (test(none)) return none;
        for (int len = mem.length / 2; len >= 1 && len < mem.length; len = Math.max(1, mem.length / 2)) {
            FuzzCase candidate = c.withMem(java.util.Arrays.copyOf(mem, len));
            if (!test(candidate)) break;
            c = candidate;
            mem = c.mem();
            if (len == 1) break;
        }
        byte[] zeros = new byte[mem.length];
        FuzzCase zeroed = c.withMem(zeros);
        if (!java.util.Arrays.equals(mem, zeros) && test(zeroed)) c = zeroed;
        return c;
    }

    /** False where the immediate is not a number the program computes with: call/exit, gotol, atomic op, byte-swap width. */
    private static boolean immIsOperand(Insn i) {
        int op = op(i.opcode());
        if (isControl(i)) return op != CALL && op != EXIT && op != JA;
        if (cls(i.opcode()) == STX) return false;
        return !(isAluClass(i) && op == END);
    }

    private static boolean isAluClass(Insn i) { return cls(i.opcode()) == ALU || cls(i.opcode()) == ALU64; }

    private static boolean isControl(Insn i) {
        int cls = cls(i.opcode());
        return cls == JMP || cls == JMP32;
    }

    /** The program's instructions as [first slot, last slot] pairs (an lddw is one unit of two slots). */
    static List<int[]> units(List<Insn> insns) {
        List<int[]> out = new ArrayList<>();
        for (int pc = 0; pc < insns.size(); pc++) {
            boolean wide = insns.get(pc).isLddw() && pc + 1 < insns.size();
            out.add(new int[] {pc, wide ? pc + 1 : pc});
            if (wide) pc++;
        }
        return out;
    }

    /**
     * The program without slots {@code from..to} (inclusive); every jump and bpf-to-bpf call that is
     * kept is re-aimed: at its old target, or at the first slot after the removed range when that was its target.
     */
    static List<Insn> remove(List<Insn> insns, int from, int to) {
        int removed = to - from + 1;
        List<Insn> out = new ArrayList<>();
        for (int pc = 0; pc < insns.size(); pc++) {
            if (pc >= from && pc <= to) continue;
            Insn i = insns.get(pc);
            int target = target(i, pc);
            if (target >= 0) {
                int newPc = map(pc, from, to, removed);
                int rel = map(target, from, to, removed) - newPc - 1;
                i = retarget(i, rel);
                if (i == null) return insns;
            }
            out.add(i);
        }
        return out;
    }

    private static int map(int pc, int from, int to, int removed) {
        if (pc < from) return pc;
        if (pc <= to) return from;
        return pc - removed;
    }

    /** Target slot of a jump, a bpf-to-bpf call or a callback's lddw, or -1. */
    static int target(Insn i, int pc) {
        if (i.opcode() == LDDW && i.src() == PSEUDO_FUNC) return pc + 1 + i.imm();
        int cls = cls(i.opcode());
        if (cls != JMP && cls != JMP32) return -1;
        int op = op(i.opcode());
        if (op == EXIT) return -1;
        if (op == CALL) return i.src() == PSEUDO_CALL && cls == JMP ? pc + 1 + i.imm() : -1;
        return i.jumpTarget(pc);
    }

    private static Insn retarget(Insn i, int rel) {
        boolean viaImm = op(i.opcode()) == CALL || i.opcode() == (JMP32 | JA) || i.opcode() == LDDW;
        if (viaImm) return InsnChoices.withImm(i, rel);
        if (rel < Short.MIN_VALUE || rel > Short.MAX_VALUE) return null;
        return InsnChoices.withOff(i, rel);
    }
}
