package dev.bpf4j.verifier;

import dev.bpf4j.isa.JmpOps;
import dev.bpf4j.isa.Opcodes;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;
import java.util.function.LongSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bounds arithmetic must never exclude a value the engines can compute: for random ranges and
 * random members of them, the concrete result of every ALU operation (RFC 9669, as both engines
 * run it) lies in the abstract result, and a comparison that holds for two members leaves both in
 * the refined bounds of the branch taken (and the decided outcome is never wrong).
 */
class ScalarBoundsSoundnessTest {
    static final long SEED = Long.getLong("bpf4j.seed", 0x5eed_2026L);
    static final int[] ALU_OPS = {Opcodes.ADD, Opcodes.SUB, Opcodes.MUL, Opcodes.DIV, Opcodes.MOD, Opcodes.OR, Opcodes.AND,
            Opcodes.XOR, Opcodes.LSH, Opcodes.RSH, Opcodes.ARSH};
    static final int[] JMP_OPS = {Opcodes.JEQ, Opcodes.JNE, Opcodes.JGT, Opcodes.JGE, Opcodes.JLT, Opcodes.JLE, Opcodes.JSGT,
            Opcodes.JSGE, Opcodes.JSLT, Opcodes.JSLE, Opcodes.JSET};

    /** A random range (small, around 0, near the 32-bit and 64-bit edges, or a constant) and a member of it. */
    static final class Sample {
        final RegState range;
        final long value;

        Sample(SplittableRandom r) {
            long[] centres = {0, 7, 255, 0x7fffffffL, 0xffffffffL, Long.MAX_VALUE, Long.MIN_VALUE, -1, -300};
            long c = centres[r.nextInt(centres.length)] + r.nextLong(-40, 40);
            long width = r.nextInt(4) == 0 ? 0 : r.nextLong(0, r.nextBoolean() ? 64 : 1L << 40);
            long lo = c, hi = c + width;
            if (hi < lo) hi = Long.MAX_VALUE; // no wrap in the signed range
            RegState range = RegState.unknown();
            range.setVar(lo, hi);
            range.sync();
            long value = width == 0 ? lo : lo + r.nextLong(0, hi - lo + 1 > 0 ? hi - lo + 1 : Long.MAX_VALUE);
            // a third of the samples went through an operation first: known bits, 32-bit bounds, wrapped ranges
            if (r.nextInt(3) == 0) {
                long k = r.nextInt(2) == 0 ? r.nextLong() : r.nextLong(-300, 300);
                int op = ALU_OPS[r.nextInt(ALU_OPS.length)];
                boolean alu64 = r.nextBoolean();
                RegState other = RegState.constant(k);
                if (r.nextBoolean()) { // a range, not a constant, as the second operand
                    other = RegState.unknown();
                    other.setVar(Math.min(k, k + 50), Math.max(k, k + 50));
                }
                long ko = other.isConst() ? k : Math.min(k, k + 50) + r.nextInt(51);
                ScalarAlu.apply(op, alu64, 0, range, other);
                value = ScalarAlu.fold(op, alu64, 0, value, ko);
                assertThat(contains(range, value)).as("seed %d: sample 0x%x op 0x%x %d -> %d in %s", SEED, op, alu64 ? 64 : 32, ko, value, range)
                        .isTrue();
            }
            this.range = range;
            this.value = value;
        }
    }

    /** Every bound and the known bits hold {@code v}. */
    static boolean contains(RegState r, long v) {
        long u32 = v & 0xffffffffL;
        return r.smin <= v && v <= r.smax && Long.compareUnsigned(r.umin, v) <= 0 && Long.compareUnsigned(v, r.umax) <= 0
                && r.s32min <= (int) v && (int) v <= r.s32max && r.u32min <= u32 && u32 <= r.u32max && r.tnum.contains(v);
    }

    @Test
    void aluResultsContainEveryConcreteResult() {
        SplittableRandom r = new SplittableRandom(SEED);
        for (int i = 0; i < 200_000; i++) {
            Sample a = new Sample(r), b = new Sample(r);
            int op = ALU_OPS[r.nextInt(ALU_OPS.length)];
            boolean alu64 = r.nextBoolean();
            int off = (op == Opcodes.DIV || op == Opcodes.MOD) && r.nextInt(4) == 0 ? 1 : 0;
            RegState dst = a.range.copy();
            ScalarAlu.apply(op, alu64, off, dst, b.range.copy());
            long concrete = ScalarAlu.fold(op, alu64, off, a.value, b.value);
            assertThat(contains(dst, concrete))
                    .as("seed %d #%d: op 0x%x alu64=%s off=%d a=%d in %s, b=%d in %s -> %d not in %s",
                            SEED, i, op, alu64, off, a.value, a.range, b.value, b.range, concrete, dst)
                    .isTrue();
        }
    }

    @Test
    void tnumOperationsContainEveryConcreteResult() {
        SplittableRandom r = new SplittableRandom(SEED + 2);
        for (int i = 0; i < 200_000; i++) {
            long am = r.nextLong() & r.nextLong(), bm = r.nextLong() & r.nextLong() & r.nextLong();
            long av = r.nextLong() & ~am, bv = r.nextLong() & ~bm;
            Tnum a = new Tnum(av, am), b = new Tnum(bv, bm);
            long x = av | (r.nextLong() & am), y = bv | (r.nextLong() & bm);
            int s = r.nextInt(64);
            String what = String.format("seed %d #%d: %s %s x=%x y=%x", SEED + 2, i, a, b, x, y);
            assertThat(a.add(b).contains(x + y)).as(what + " add").isTrue();
            assertThat(a.sub(b).contains(x - y)).as(what + " sub").isTrue();
            assertThat(a.mul(b).contains(x * y)).as(what + " mul").isTrue();
            assertThat(a.and(b).contains(x & y)).as(what + " and").isTrue();
            assertThat(a.or(b).contains(x | y)).as(what + " or").isTrue();
            assertThat(a.xor(b).contains(x ^ y)).as(what + " xor").isTrue();
            assertThat(a.lshift(s).contains(x << s)).as(what + " lsh").isTrue();
            assertThat(a.rshift(s).contains(x >>> s)).as(what + " rsh").isTrue();
            assertThat(a.arshift(s, false).contains(x >> s)).as(what + " arsh").isTrue();
            assertThat(a.arshift(s & 31, true).contains(((int) x >> (s & 31)) & 0xffffffffL)).as(what + " arsh32").isTrue();
            long lo = Math.min(x, y), hi = Math.max(x, y);
            if (lo >= 0 || hi < 0) assertThat(Tnum.range(lo, hi).contains(lo + (hi - lo) / 3)).as(what + " range").isTrue();
            assertThat(a.includes(Tnum.constant(x))).as(what + " in").isTrue();
        }
    }

    /** The kernel's tnum_mul written as it is there, one tnum per step: {@link Tnum#mul} must give exactly this. */
    private static Tnum kernelTnumMul(Tnum a, Tnum b) {
        Tnum accM = Tnum.constant(0);
        long accV = a.value() * b.value();
        while (a.value() != 0 || a.mask() != 0) {
            if ((a.value() & 1) != 0) accM = accM.add(new Tnum(0, b.mask()));
            else if ((a.mask() & 1) != 0) accM = accM.add(new Tnum(0, b.value() | b.mask()));
            a = a.rshift(1);
            b = b.lshift(1);
        }
        return Tnum.constant(accV).add(accM);
    }

    @Test
    void tnumMulAndOverflowTestsMatchTheirReferences() {
        SplittableRandom r = new SplittableRandom(SEED + 3);
        for (int i = 0; i < 200_000; i++) {
            int kind = r.nextInt(4); // unknown bits: many, few, none on one side, none on either
            long am = kind == 3 ? 0 : r.nextLong() & r.nextLong(), bm = kind >= 2 ? 0 : r.nextLong() & r.nextLong() & r.nextLong();
            Tnum a = new Tnum(r.nextLong() & ~am, am), b = new Tnum(r.nextLong() & ~bm, bm);
            assertThat(a.mul(b)).as("seed %d #%d: %s * %s", SEED + 3, i, a, b).isEqualTo(kernelTnumMul(a, b));
            long x = r.nextInt(3) == 0 ? r.nextInt() : r.nextLong(), y = r.nextInt(3) == 0 ? r.nextInt() : r.nextLong();
            assertThat(ScalarAlu.addOverflows(x, y, x + y)).as("%d + %d", x, y).isEqualTo(exactThrows(() -> Math.addExact(x, y)));
            assertThat(ScalarAlu.subOverflows(x, y, x - y)).as("%d - %d", x, y).isEqualTo(exactThrows(() -> Math.subtractExact(x, y)));
            assertThat(ScalarAlu.mulOverflows(x, y, x * y)).as("%d * %d", x, y).isEqualTo(exactThrows(() -> Math.multiplyExact(x, y)));
        }
        for (long edge : new long[] {Long.MIN_VALUE, Long.MAX_VALUE, -1, 0, 1}) {
            for (long other : new long[] {Long.MIN_VALUE, Long.MAX_VALUE, -1, 0, 1, 2}) {
                assertThat(ScalarAlu.addOverflows(edge, other, edge + other)).isEqualTo(exactThrows(() -> Math.addExact(edge, other)));
                assertThat(ScalarAlu.subOverflows(edge, other, edge - other)).isEqualTo(exactThrows(() -> Math.subtractExact(edge, other)));
                assertThat(ScalarAlu.mulOverflows(edge, other, edge * other)).as("%d * %d", edge, other)
                        .isEqualTo(exactThrows(() -> Math.multiplyExact(edge, other)));
            }
        }
    }

    private static boolean exactThrows(LongSupplier op) {
        try {
            op.getAsLong();
            return false;
        } catch (ArithmeticException e) {
            return true;
        }
    }

    @Test
    void branchesKeepEveryPairThatTakesThem() {
        SplittableRandom r = new SplittableRandom(SEED + 1);
        for (int i = 0; i < 200_000; i++) {
            Sample a = new Sample(r), b = new Sample(r);
            int op = JMP_OPS[r.nextInt(JMP_OPS.length)];
            boolean jmp32 = r.nextInt(3) == 0;
            boolean holds = JmpOps.holds(op, jmp32, a.value, b.value);
            int decided = BranchRules.decide(op, jmp32, a.range, b.range);
            String what = String.format("seed %d #%d: op 0x%x jmp32=%s a=%d in %s, b=%d in %s holds=%s", SEED + 1, i, op, jmp32,
                    a.value, a.range, b.value, b.range, holds);
            if (decided != BranchRules.UNKNOWN) assertThat(decided == BranchRules.ALWAYS).as(what).isEqualTo(holds);
            RegState x = a.range.copy(), y = b.range.copy();
            BranchRules.refine(op, jmp32, holds, x, y);
            assertThat(contains(x, a.value) && contains(y, b.value)).as(what + " -> " + x + ", " + y).isTrue();
        }
    }
}
