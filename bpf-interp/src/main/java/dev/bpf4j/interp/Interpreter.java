package dev.bpf4j.interp;

import dev.bpf4j.runtime.AtomicOps;

import dev.bpf4j.isa.AluOps;
import dev.bpf4j.isa.JmpOps;

import dev.bpf4j.helpers.MapHelperInlining;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunEntry;

import static dev.bpf4j.interp.Registers.dst;
import static dev.bpf4j.interp.Registers.setDst;
import static dev.bpf4j.interp.Registers.src;
import static dev.bpf4j.isa.Opcodes.*;

/**
 * The driver of the dispatch loop: {@link HotLoop} runs everything that cannot fail or call out,
 * and returns here for the one instruction it leaves: a call, an exit, an atomic, a legacy packet
 * load, an access outside the memory window (checked in full here, which moves the window), a
 * back-edge over budget or a trap. The semantics live in {@link AluOps}, {@link JmpOps},
 * {@link AtomicOps} and {@link Machine}. Both methods must stay under HotSpot's 8,000-byte
 * huge-method limit (larger methods are never JIT-compiled), which {@code DispatchMethodSizeTest}
 * enforces.
 */
@RunEntry // the engine loop / helper bridge: never a frame of a Java caller stack
final class Interpreter {
    private Interpreter() {}

    static final long MASK32 = 0xffffffffL;

    /**
     * Runs {@code p} on a reset machine; returns r0. {@code budget} = back-edges plus calls allowed.
     * The dispatch loop runs first from here: a run it takes straight to main's {@code exit}, with
     * nothing on the way that it leaves to the driver (a call, a helper, an atomic, an access outside
     * the window, a back-edge over budget), ends without entering the driver.
     */
    static long execute(DecodedProgram p, Machine m, long budget) {
        OwnLoops.countRun(p);
        long[] code = p.code, r = m.regs;
        Registers.setSlot(r, Registers.BUDGET, budget);
        int pc = runLoop(p, code, r, 0);
        long left = Registers.slot(r, Registers.BUDGET);
        if (((int) code[pc] & 0xff) == (JMP | EXIT)) { // main's own exit: only the driver enters calls
            m.budgetLeft = left;
            m.cleanEnd = true; // the next reset may skip what only the driver changes
            return r[0];
        }
        return execute(p, m, pc, left, 1, true);
    }

    /** The dispatch loop from {@code pc}: the program's own copy once it is hot, else the shared one. */
    private static int runLoop(DecodedProgram p, long[] code, long[] r, int pc) {
        final DispatchLoop own = p.ownLoop;
        return own == null ? HotLoop.run(code, r, pc) : own.runFrom(code, r, pc);
    }

    /**
     * Runs from {@code pc} until the frame at depth {@code base} exits (1: the main program; deeper:
     * a callback, see {@link Machine#callSubprogram}) and returns r0; leaves the unspent budget in
     * {@link Machine#budgetLeft}. A tail call replaces {@code p} and restarts at pc 0.
     */
    static long execute(DecodedProgram p, Machine m, int pc, long budget, int base) {
        return execute(p, m, pc, budget, base, false);
    }

    /** As above; {@code left}: the dispatch loop has just left {@code pc} to the driver, which runs it first. */
    private static long execute(DecodedProgram p, Machine m, int pc, long budget, int base, boolean left) {
        long[] code = p.code;
        final long[] r = m.regs;
        m.budgetLeft = budget; // the budget lives in the machine between HotLoop runs
        for (;;) {
            if (left) {
                left = false;
            } else {
                Registers.setSlot(r, Registers.BUDGET, m.budgetLeft);
                pc = runLoop(p, code, r, pc);
                m.budgetLeft = Registers.slot(r, Registers.BUDGET);
            }
            final long w = code[pc];
            final int lo = (int) w;
            switch (lo & 0xff) {
                // ---- accesses outside the window: the full check throws or moves the window ----
                case LDX | MEM | B: case InsnCode.LDXB_LSH_K: setDst(r, w, NativeMemory.getByte(m.readSlow(src(r, w) + (lo >> 16), 1, pc)) & 0xffL); break;
                case LDX | MEM | H: setDst(r, w, NativeMemory.getShort(m.readSlow(src(r, w) + (lo >> 16), 2, pc)) & 0xffffL); break;
                case LDX | MEM | W: case InsnCode.LDXW_JLE32_X: // a fused pair runs its first half alone here
                    setDst(r, w, NativeMemory.getInt(m.readSlow(src(r, w) + (lo >> 16), 4, pc)) & MASK32); break;
                case LDX | MEM | DW: setDst(r, w, NativeMemory.getLong(m.readSlow(src(r, w) + (lo >> 16), 8, pc))); break;
                case LDX | MEMSX | B: setDst(r, w, NativeMemory.getByte(m.readSlow(src(r, w) + (lo >> 16), 1, pc))); break;
                case LDX | MEMSX | H: setDst(r, w, NativeMemory.getShort(m.readSlow(src(r, w) + (lo >> 16), 2, pc))); break;
                case LDX | MEMSX | W: setDst(r, w, NativeMemory.getInt(m.readSlow(src(r, w) + (lo >> 16), 4, pc))); break;
                case ST | MEM | B: NativeMemory.putByte(m.writeSlow(dst(r, w) + (lo >> 16), 1, pc), (byte) (w >> 32)); break;
                case ST | MEM | H: NativeMemory.putShort(m.writeSlow(dst(r, w) + (lo >> 16), 2, pc), (short) (w >> 32)); break;
                case ST | MEM | W: NativeMemory.putInt(m.writeSlow(dst(r, w) + (lo >> 16), 4, pc), (int) (w >> 32)); break;
                case ST | MEM | DW: NativeMemory.putLong(m.writeSlow(dst(r, w) + (lo >> 16), 8, pc), w >> 32); break;
                case STX | MEM | B: NativeMemory.putByte(m.writeSlow(dst(r, w) + (lo >> 16), 1, pc), (byte) src(r, w)); break;
                case STX | MEM | H: NativeMemory.putShort(m.writeSlow(dst(r, w) + (lo >> 16), 2, pc), (short) src(r, w)); break;
                case STX | MEM | W: case InsnCode.STXW_STXW:
                    NativeMemory.putInt(m.writeSlow(dst(r, w) + (lo >> 16), 4, pc), (int) src(r, w)); break;
                case STX | MEM | DW: NativeMemory.putLong(m.writeSlow(dst(r, w) + (lo >> 16), 8, pc), src(r, w)); break;
                case STX | ATOMIC | W: case STX | ATOMIC | DW: m.atomic(w, pc); break;
                // ---- legacy packet loads: out of range exits the frame with r0 = 0 ----
                case LD | ABS | B: case LD | ABS | H: case LD | ABS | W:
                case LD | IND | B: case LD | IND | H: case LD | IND | W:
                    if (m.loadPacket(w)) break;
                    r[0] = 0;
                    if (m.depth == base) return 0;
                    pc = m.leaveCall();
                    continue;
                // ---- calls and exit ----
                case InsnCode.INLINE_LOOKUP: case InsnCode.INLINE_UPDATE: case InsnCode.INLINE_ARRAY_LOOKUP:
                    if (MapHelperInlining.inline((lo & 0xff) == InsnCode.INLINE_UPDATE, p.inlineMaps[pc], r)) break;
                    // else (a key outside the frame, a closed map, other flags) the helper is called: fall through
                case JMP | CALL | X: // callx: the helper whose id is in dst
                case JMP | CALL:
                    final boolean callx = (lo & 0xff) == (JMP | CALL | X);
                    if (callx || ((lo >>> 12) & 0xf) == CALL_HELPER) {
                        r[0] = callx ? m.callx(pc, InsnCode.dst(w)) : m.callHelper(pc); // callbacks spend m.budgetLeft too
                        if (m.stop) {
                            if (m.exited) return m.exitValue;
                            p = m.enterTailCall(); // same registers, same frame
                            code = p.code;
                            pc = 0;
                            continue;
                        }
                        break;
                    }
                    if (--m.budgetLeft < 0) throw m.overBudget(pc); // budget before depth
                    pc = m.enterCall(w, pc);
                    continue;
                case JMP | EXIT:
                    if (m.depth == base) {
                        if (base == 1) m.cleanEnd = m.asReset(); // main's exit: the next reset may skip what is unchanged
                        return r[0];
                    }
                    pc = m.leaveCall();
                    continue;
                default:
                    // HotLoop runs every jump but a back-edge it has no budget for.
                    int cls = lo & 7;
                    if (cls == JMP || cls == JMP32) throw m.overBudget(pc);
                    throw p.illegal(pc);
            }
            pc++;
        }
    }
}
