package dev.bpf4j.jvm;

import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;

import java.util.ArrayList;
import java.util.List;

import static org.objectweb.asm.Opcodes.ACC_STATIC;

/**
 * Splits a program into regions, each emitted as one method under HotSpot's 8,000-byte
 * huge-method limit (a larger method is never JIT-compiled without -XX:-DontCompileHugeMethods),
 * and groups the regions into parts, each one hidden class within the class-file limits (65,535
 * constant-pool entries). A program of ordinary size is one region in one class: all its
 * registers stay locals and its jumps stay gotos.
 */
final class Regions {
    private Regions() {}

    /** HotSpot's limit (HugeMethodLimit) less room for the wider ldc forms the final class may need. */
    static final int METHOD_LIMIT = 8000;
    static final int MEASURE_LIMIT = METHOD_LIMIT - 600;
    /** Slots per part: each slot adds at most a few constants. */
    static final int PART_SLOTS = 4096;
    static final int PART_REGIONS = 256;
    /** First guess of bytecode bytes per slot; {@link #measure} decides. */
    private static final int GUESS_BYTES = 24, GUESS_REGION = 6000;

    /** {@code [start, end)} pairs covering the program in order, each measured under {@link #MEASURE_LIMIT}. */
    static List<int[]> split(JvmCompiler.Facts f) {
        List<int[]> out = new ArrayList<>();
        int n = f.insns.length, per = GUESS_REGION / GUESS_BYTES;
        for (int start = 0; start < n; ) {
            int end = boundary(f, Math.min(n, start + per));
            fit(f, start, end, out);
            start = end;
        }
        return out;
    }

    /** Adds {@code [start, end)}, halved until each half measures under the limit. */
    private static void fit(JvmCompiler.Facts f, int start, int end, List<int[]> out) {
        if (end - start <= 1 || measure(f, start, end) <= MEASURE_LIMIT) {
            out.add(new int[] {start, end});
            return;
        }
        int mid = boundary(f, start + (end - start) / 2);
        if (mid <= start || mid >= end) mid = start + 1 < end && !f.secondSlot[start + 1] ? start + 1 : start + 2;
        fit(f, start, mid, out);
        fit(f, mid, end, out);
    }

    /** {@code pc}, moved past an lddw's second slot: regions never split an lddw. */
    private static int boundary(JvmCompiler.Facts f, int pc) {
        return pc < f.insns.length && f.secondSlot[pc] ? pc + 1 : pc;
    }

    /** The bytecode size of region {@code [start, end)}, emitted into a throw-away class. */
    static int measure(JvmCompiler.Facts f, int start, int end) {
        ClassWriter cw = new ClassWriter(0);
        MethodVisitor mv = cw.visitMethod(ACC_STATIC, "m", RegionEmitter.DESC, null, null);
        return RegionEmitter.emit(f, mv, start, end);
    }

    /** Consecutive regions grouped into parts of at most {@link #PART_SLOTS} slots (a bigger region alone) and {@link #PART_REGIONS} regions. */
    static List<List<int[]>> parts(List<int[]> regions) {
        List<List<int[]>> out = new ArrayList<>();
        List<int[]> cur = new ArrayList<>();
        int slots = 0;
        for (int[] r : regions) {
            int len = r[1] - r[0];
            if (!cur.isEmpty() && (slots + len > PART_SLOTS || cur.size() == PART_REGIONS)) {
                out.add(cur);
                cur = new ArrayList<>();
                slots = 0;
            }
            cur.add(r);
            slots += len;
        }
        out.add(cur);
        return out;
    }
}
