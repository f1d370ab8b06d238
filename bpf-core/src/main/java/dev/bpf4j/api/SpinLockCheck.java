package dev.bpf4j.api;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.object.MapReference;
import dev.bpf4j.object.ProgramSpec;
import dev.bpf4j.runtime.BpfLoadException;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.Map;
import java.util.Objects;

/**
 * The load-time part of the kernel verifier's spin lock rules, as a forward data flow over the program that
 * follows map pointers from their {@code lddw}, values from {@code bpf_map_lookup_elem}, register copies and
 * constant offsets, and whether a lock is held ({@code process_spin_lock}, {@code do_check}):
 * <ul>
 * <li>where the argument of {@code bpf_spin_lock}/{@code bpf_spin_unlock} can be traced to a map value, that
 * map must have BTF, a {@code struct bpf_spin_lock} in its value, and r1 must point at it (arguments the flow
 * cannot follow — spilled to the stack, variable offsets — are checked when the helper runs);</li>
 * <li>whether the lock is held is followed per path (a state per instruction and lock state, so paths that
 * took the lock are never merged with paths that did not): no helper call but {@code bpf_spin_unlock} while
 * it is held, no unlock while it is not, no exit from the main program while it is held. Unlike the kernel,
 * the flow does not know which branches are impossible, so a program that takes and releases the lock
 * under two separate tests of one condition is refused. After a bpf-to-bpf call, and inside subprograms,
 * the lock state is unknown and not checked.</li>
 * </ul>
 */
final class SpinLockCheck {
    private SpinLockCheck() {}

    /** What the check needs of a map: its name, whether it has BTF, its lock offset (-1: none), its inner template. */
    record Target(String name, boolean hasBtf, int spinLockOffset, Target inner) {}

    /** A register that holds a map pointer ({@code value} false) or a pointer into one of its values at {@code off}. */
    private record Ptr(Target map, boolean value, long off) {}

    private static final long UNKNOWN_OFF = Long.MIN_VALUE;

    /** Whether a spin lock is held: slot {@link #LOCK} of a state; null there means unknown. */
    private enum Lock { FREE, HELD }

    private static final int LOCK = 11, SLOTS = 12;

    static void check(ProgramSpec spec, Map<String, Target> maps) {
        Insn[] code = spec.program().toArray();
        if (Arrays.stream(code).noneMatch(SpinLockCheck::isLockCall)) return;
        Object[][] in = new Object[code.length * 3][]; // one state per (pc, lock state)
        Deque<Integer> work = new ArrayDeque<>();
        Object[] entry = new Object[SLOTS];
        entry[LOCK] = Lock.FREE;
        flow(in, work, 0, entry, code.length);
        while (!work.isEmpty()) {
            int at = work.poll(), pc = at / 3;
            Object[] s = in[at].clone();
            Insn i = code[pc];
            int cls = i.cls();
            if (i.isLddw()) {
                s[i.dst()] = lddw(spec, pc, code, maps);
                flow(in, work, pc + 2, s, code.length);
                continue;
            }
            if (Opcodes.isJmp(i.opcode())) {
                int op = Opcodes.op(i.opcode());
                if (op == Opcodes.EXIT) {
                    boolean main = spec.functionAt(pc).map(f -> f.pc() == 0).orElse(true);
                    if (main && s[LOCK] == Lock.HELD) throw error(spec, pc, "BPF_EXIT instruction in main prog cannot be used inside bpf_spin_lock-ed region");
                    continue;
                }
                if (op == Opcodes.CALL) {
                    call(spec, pc, i, s);
                    if (i.src() != Opcodes.CALL_HELPER) s[LOCK] = null; // what the callee did to the lock is not followed
                    flow(in, work, pc + 1, s, code.length);
                    if (i.src() == Opcodes.PSEUDO_CALL) flow(in, work, pc + 1 + i.imm(), new Object[SLOTS], code.length);
                    continue;
                }
                flow(in, work, pc + 1 + (cls == Opcodes.JMP32 && op == Opcodes.JA ? i.imm() : i.off()), s, code.length); // gotol: imm
                if (op != Opcodes.JA) flow(in, work, pc + 1, s, code.length);
                continue;
            }
            if (Opcodes.isAlu(i.opcode())) alu(i, s);
            else if (cls == Opcodes.LDX) s[i.dst()] = null;
            else if (cls == Opcodes.LD) for (int r = 0; r <= 5; r++) s[r] = null; // LD ABS/IND: r0 set, r1-r5 clobbered
            else if (cls == Opcodes.STX && Opcodes.mode(i.opcode()) == Opcodes.ATOMIC && (i.imm() & Opcodes.FETCH) != 0) {
                s[i.imm() == Opcodes.CMPXCHG ? 0 : i.src()] = null;
            }
            flow(in, work, pc + 1, s, code.length);
        }
    }

    private static boolean isLockCall(Insn i) {
        return i.opcode() == (Opcodes.JMP | Opcodes.CALL) && i.src() == Opcodes.CALL_HELPER
                && (i.imm() == HelperIds.SPIN_LOCK || i.imm() == HelperIds.SPIN_UNLOCK);
    }

    private static Ptr lddw(ProgramSpec spec, int pc, Insn[] code, Map<String, Target> maps) {
        MapReference ref = spec.mapReferenceAt(pc).orElse(null);
        if (ref == null || !maps.containsKey(ref.mapName())) return null;
        Target t = maps.get(ref.mapName());
        return ref.kind() == MapReference.Kind.MAP ? new Ptr(t, false, 0) : new Ptr(t, true, code[pc + 1].imm() & 0xffffffffL);
    }

    private static void alu(Insn i, Object[] s) {
        int op = Opcodes.op(i.opcode());
        boolean alu64 = i.cls() == Opcodes.ALU64, reg = Opcodes.source(i.opcode()) == Opcodes.X;
        Ptr d = (Ptr) s[i.dst()];
        if (alu64 && op == Opcodes.MOV && reg && i.off() == 0) { s[i.dst()] = s[i.src()]; return; }
        if (alu64 && d != null && d.value() && (op == Opcodes.ADD || op == Opcodes.SUB)) {
            long off = reg || d.off() == UNKNOWN_OFF ? UNKNOWN_OFF : d.off() + (op == Opcodes.ADD ? i.imm() : -(long) i.imm());
            s[i.dst()] = new Ptr(d.map(), true, off);
            return;
        }
        s[i.dst()] = null;
    }

    private static void call(ProgramSpec spec, int pc, Insn i, Object[] s) {
        Ptr result = null;
        if (i.src() == Opcodes.CALL_HELPER) {
            if (s[LOCK] == Lock.HELD && i.imm() != HelperIds.SPIN_UNLOCK) throw error(spec, pc, "function calls are not allowed while holding a lock");
            Ptr r1 = (Ptr) s[1];
            if (i.imm() == HelperIds.MAP_LOOKUP_ELEM && r1 != null && !r1.value()) {
                Target m = r1.map();
                result = m.inner() != null ? new Ptr(m.inner(), false, 0) : new Ptr(m, true, 0);
            }
            if (isLockCall(i) && r1 != null && r1.value()) lockArgument(spec, pc, i, r1);
            if (i.imm() == HelperIds.SPIN_UNLOCK && s[LOCK] == Lock.FREE) throw error(spec, pc, "bpf_spin_unlock without taking a lock");
            if (i.imm() == HelperIds.SPIN_LOCK) s[LOCK] = Lock.HELD;
            if (i.imm() == HelperIds.SPIN_UNLOCK) s[LOCK] = Lock.FREE;
        }
        for (int r = 1; r <= 5; r++) s[r] = null;
        s[0] = result;
    }

    private static void lockArgument(ProgramSpec spec, int pc, Insn i, Ptr p) {
        Target m = p.map();
        String helper = i.imm() == HelperIds.SPIN_LOCK ? "bpf_spin_lock" : "bpf_spin_unlock";
        String why = null;
        if (!m.hasBtf()) why = "map '" + m.name() + "' has to have BTF in order to use bpf_spin_lock";
        else if (m.spinLockOffset() < 0) why = "map '" + m.name() + "' has no valid bpf_spin_lock";
        else if (p.off() != UNKNOWN_OFF && p.off() != m.spinLockOffset()) {
            why = "off " + p.off() + " doesn't point to 'struct bpf_spin_lock' that is at " + m.spinLockOffset();
        }
        if (why != null) throw error(spec, pc, helper + ": " + why);
    }

    private static BpfLoadException error(ProgramSpec spec, int pc, String why) {
        return new BpfLoadException("load program " + spec.describe(pc) + ": " + why);
    }

    /** Merges {@code s} into the state at {@code to} with the same lock state; requeues it when that changed it. */
    private static void flow(Object[][] in, Deque<Integer> work, int pc, Object[] s, int length) {
        if (pc < 0 || pc >= length) return;
        int to = pc * 3 + (s[LOCK] == Lock.FREE ? 0 : s[LOCK] == Lock.HELD ? 1 : 2);
        if (in[to] == null) {
            in[to] = s.clone();
            work.add(to);
            return;
        }
        boolean changed = false;
        for (int r = 0; r < SLOTS; r++) {
            if (in[to][r] != null && !Objects.equals(in[to][r], s[r])) {
                in[to][r] = null;
                changed = true;
            }
        }
        if (changed) work.add(to);
    }
}
