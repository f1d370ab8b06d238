package dev.bpf4j.jvm;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.LoadOptions;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Programs far past one method: split into regions, each under HotSpot's 8,000-byte limit (the class
 * assembler refuses a bigger one, so a load that succeeds proves it), and into many hidden classes.
 */
class LargeProgramTest {
    /**
     * {@code slots} slots of ALU work over r0-r5, with forward jumps, 64-bit constants, stack stores and
     * loads and one back-edge from the end to the start (the body runs twice): every kind of region edge.
     */
    static Program big(int slots, long seed) {
        Random rnd = new Random(seed);
        List<Insn> out = new ArrayList<>();
        out.add(new Insn(ALU64 | MOV | K, 6, 0, 0, 2)); // r6: the pass counter
        for (int r = 0; r <= 5; r++) out.add(new Insn(ALU64 | MOV | K, r, 0, 0, r + 1));
        for (int k = 1; k <= 8; k++) out.add(new Insn(ST | MEM | DW, 10, 0, -8 * k, k));
        int body = out.size();
        while (out.size() < slots - 5) {
            int kind = rnd.nextInt(20), d = rnd.nextInt(6), s = rnd.nextInt(6);
            if (kind == 0 && out.size() < slots - 40) {
                out.add(new Insn(JMP | JGT | X, d, s, rnd.nextInt(30), 0));
            } else if (kind == 1 && out.size() < slots - 8) {
                long v = rnd.nextLong();
                out.add(new Insn(LDDW, d, 0, 0, (int) v));
                out.add(new Insn(0, 0, 0, 0, (int) (v >>> 32)));
            } else if (kind == 2) {
                out.add(new Insn(STX | MEM | DW, 10, d, -8 * (1 + rnd.nextInt(8)), 0));
            } else if (kind == 3) {
                out.add(new Insn(LDX | MEM | W, d, 10, -8 * (1 + rnd.nextInt(8)), 0));
            } else {
                int[] ops = {ADD, SUB, MUL, XOR, OR, AND};
                out.add(new Insn(ALU64 | ops[rnd.nextInt(ops.length)] | X, d, s, 0, 0));
                if (rnd.nextBoolean()) out.add(new Insn(ALU | ADD | K, s, 0, 0, rnd.nextInt()));
            }
        }
        while (out.size() < slots - 5) out.add(new Insn(ALU64 | ADD | K, 0, 0, 0, 1));
        out.add(new Insn(ALU64 | SUB | K, 6, 0, 0, 1));
        out.add(new Insn(JMP | JEQ | K, 6, 0, 1, 0));
        out.add(new Insn(JMP32 | JA, 0, 0, 0, body - (out.size() + 1))); // gotol back to the body
        out.add(new Insn(ALU64 | XOR | X, 0, 1, 0, 0));
        out.add(new Insn(JMP | EXIT, 0, 0, 0, 0));
        boolean[] second = new boolean[out.size()];
        for (int pc = 0; pc < out.size(); pc++) if (out.get(pc).opcode() == LDDW) second[++pc] = true;
        for (int pc = 0; pc < out.size(); pc++) { // a jump into an lddw's second slot lands after it instead
            Insn i = out.get(pc);
            if (i.opcode() == (JMP | JGT | X) && second[pc + 1 + i.off()]) out.set(pc, new Insn(i.opcode(), i.dst(), i.src(), i.off() + 1, 0));
        }
        return new Program("big", out);
    }

    /**
     * Unverified: about 1,000 random branches over plain values are more paths than the verifier's 1M
     * limit since it tracks 32-bit bounds and known bits (what is tested is the regions' edges).
     */
    @Test void twentyThousandSlotsAgreeOnAllEngines() {
        Program p = big(20_000, 7);
        Trio.Outcome o = Trio.agree(p, null, LoadOptions.defaults().withEntryArgs(2), false, 1_000_000);
        assertThat(o.r0()).as(o.error()).isNotNull();
    }

    /** A million slots load and run (unverified: the verifier's own limit is not what this tests), as on the interpreter. */
    @Test void aMillionSlotsLoadAndRun() {
        Program p = big(1_000_000, 11);
        Trio.Outcome interp = Trio.runOn(Trio.ENGINES.get(0), p, null, LoadOptions.defaults().withEntryArgs(2), false, 1_000_000);
        Trio.Outcome jvm = Trio.runOn(new JvmEngine(), p, null, LoadOptions.defaults().withEntryArgs(2), false, 1_000_000);
        assertThat(interp.r0()).isNotNull();
        assertThat(jvm.comparable()).isEqualTo(interp.comparable());
    }

    @Test void regionsOfABigProgramMeasureUnderTheLimit() {
        Program p = big(30_000, 3);
        JvmCompiler.Facts f = new JvmCompiler.Facts(p.name(), p.toArray(), LoadOptions.defaults(), null);
        List<int[]> regions = Regions.split(f);
        assertThat(regions.size()).isGreaterThan(10);
        int next = 0;
        for (int[] r : regions) {
            assertThat(r[0]).isEqualTo(next);
            assertThat(Regions.measure(f, r[0], r[1])).isLessThanOrEqualTo(Regions.MEASURE_LIMIT);
            next = r[1];
        }
        assertThat(next).isEqualTo(p.insns().size());
    }
}
