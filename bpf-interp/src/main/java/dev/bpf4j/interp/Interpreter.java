package dev.bpf4j.interp;

import dev.bpf4j.runtime.RunEntry;
import dev.bpf4j.runtime.NativeMemory;

import static dev.bpf4j.interp.InsnCode.*;
import static dev.bpf4j.isa.Opcodes.*;

/**
 * The dispatch loop: one {@code switch} on the opcode byte of each pre-decoded word. The semantics
 * live in {@link AluOps}, {@link JmpOps}, {@link AtomicOps} and {@link Machine}; this method only
 * routes operands. It must stay under HotSpot's 8,000-byte huge-method limit (larger methods are
 * never JIT-compiled), which {@code DispatchMethodSizeTest} enforces: rare cases call out.
 */
@RunEntry // the engine loop / helper bridge: never a frame of a Java caller stack
final class Interpreter {
    private Interpreter() {}

    static final long MASK32 = 0xffffffffL;

    /** Runs {@code p} on a reset machine; returns r0. {@code budget} = back-edges plus calls allowed. */
    static long execute(DecodedProgram p, Machine m, long budget) { return execute(p, m, 0, budget, 1); }

    /**
     * Runs from {@code pc} until the frame at depth {@code base} exits (1: the main program; deeper:
     * a callback, see {@link Machine#callSubprogram}) and returns r0; leaves the unspent budget in
     * {@link Machine#budgetLeft}. A tail call replaces {@code p} and restarts at pc 0.
     */
    static long execute(DecodedProgram p, Machine m, int pc, long budget, int base) {
        long[] code = p.code;
        final long[] r = m.regs;
        for (;;) {
            final long w = code[pc];
            final int lo = (int) w;
            final int d = (lo >>> 8) & 0xf, s = (lo >>> 12) & 0xf;
            taken:
            {
                switch (lo & 0xff) {
                    // ---- ALU64 ----
                    case ALU64 | ADD | K: r[d] = AluOps.add64(r[d], (w >> 32)); break;
                    case ALU64 | ADD | X: r[d] = AluOps.add64(r[d], r[s]); break;
                    case ALU64 | SUB | K: r[d] = AluOps.sub64(r[d], (w >> 32)); break;
                    case ALU64 | SUB | X: r[d] = AluOps.sub64(r[d], r[s]); break;
                    case ALU64 | MUL | K: r[d] = AluOps.mul64(r[d], (w >> 32)); break;
                    case ALU64 | MUL | X: r[d] = AluOps.mul64(r[d], r[s]); break;
                    case ALU64 | DIV | K: r[d] = (lo >> 16) == 0 ? AluOps.div64(r[d], (w >> 32)) : AluOps.sdiv64(r[d], (w >> 32)); break;
                    case ALU64 | DIV | X: r[d] = (lo >> 16) == 0 ? AluOps.div64(r[d], r[s]) : AluOps.sdiv64(r[d], r[s]); break;
                    case ALU64 | OR | K: r[d] = AluOps.or64(r[d], (w >> 32)); break;
                    case ALU64 | OR | X: r[d] = AluOps.or64(r[d], r[s]); break;
                    case ALU64 | AND | K: r[d] = AluOps.and64(r[d], (w >> 32)); break;
                    case ALU64 | AND | X: r[d] = AluOps.and64(r[d], r[s]); break;
                    case ALU64 | LSH | K: r[d] = AluOps.lsh64(r[d], (w >> 32)); break;
                    case ALU64 | LSH | X: r[d] = AluOps.lsh64(r[d], r[s]); break;
                    case ALU64 | RSH | K: r[d] = AluOps.rsh64(r[d], (w >> 32)); break;
                    case ALU64 | RSH | X: r[d] = AluOps.rsh64(r[d], r[s]); break;
                    case ALU64 | NEG: r[d] = AluOps.neg64(r[d]); break;
                    case ALU64 | MOD | K: r[d] = (lo >> 16) == 0 ? AluOps.mod64(r[d], (w >> 32)) : AluOps.smod64(r[d], (w >> 32)); break;
                    case ALU64 | MOD | X: r[d] = (lo >> 16) == 0 ? AluOps.mod64(r[d], r[s]) : AluOps.smod64(r[d], r[s]); break;
                    case ALU64 | XOR | K: r[d] = AluOps.xor64(r[d], (w >> 32)); break;
                    case ALU64 | XOR | X: r[d] = AluOps.xor64(r[d], r[s]); break;
                    case ALU64 | MOV | K: r[d] = (w >> 32); break;
                    case ALU64 | MOV | X: r[d] = r[s]; break;
                    case MOVSX64: r[d] = AluOps.movsx64(r[s], lo >> 16); break;
                    case ALU64 | ARSH | K: r[d] = AluOps.arsh64(r[d], (w >> 32)); break;
                    case ALU64 | ARSH | X: r[d] = AluOps.arsh64(r[d], r[s]); break;
                    case ALU64 | END | TO_LE: r[d] = AluOps.bswap(r[d], (int) (w >> 32)); break;
                    // ---- ALU (32-bit, zero-extended) ----
                    case ALU | ADD | K: r[d] = AluOps.add32(r[d], (w >> 32)); break;
                    case ALU | ADD | X: r[d] = AluOps.add32(r[d], r[s]); break;
                    case ALU | SUB | K: r[d] = AluOps.sub32(r[d], (w >> 32)); break;
                    case ALU | SUB | X: r[d] = AluOps.sub32(r[d], r[s]); break;
                    case ALU | MUL | K: r[d] = AluOps.mul32(r[d], (w >> 32)); break;
                    case ALU | MUL | X: r[d] = AluOps.mul32(r[d], r[s]); break;
                    case ALU | DIV | K: r[d] = (lo >> 16) == 0 ? AluOps.div32(r[d], (w >> 32)) : AluOps.sdiv32(r[d], (w >> 32)); break;
                    case ALU | DIV | X: r[d] = (lo >> 16) == 0 ? AluOps.div32(r[d], r[s]) : AluOps.sdiv32(r[d], r[s]); break;
                    case ALU | OR | K: r[d] = AluOps.or32(r[d], (w >> 32)); break;
                    case ALU | OR | X: r[d] = AluOps.or32(r[d], r[s]); break;
                    case ALU | AND | K: r[d] = AluOps.and32(r[d], (w >> 32)); break;
                    case ALU | AND | X: r[d] = AluOps.and32(r[d], r[s]); break;
                    case ALU | LSH | K: r[d] = AluOps.lsh32(r[d], (w >> 32)); break;
                    case ALU | LSH | X: r[d] = AluOps.lsh32(r[d], r[s]); break;
                    case ALU | RSH | K: r[d] = AluOps.rsh32(r[d], (w >> 32)); break;
                    case ALU | RSH | X: r[d] = AluOps.rsh32(r[d], r[s]); break;
                    case ALU | NEG: r[d] = AluOps.neg32(r[d]); break;
                    case ALU | MOD | K: r[d] = (lo >> 16) == 0 ? AluOps.mod32(r[d], (w >> 32)) : AluOps.smod32(r[d], (w >> 32)); break;
                    case ALU | MOD | X: r[d] = (lo >> 16) == 0 ? AluOps.mod32(r[d], r[s]) : AluOps.smod32(r[d], r[s]); break;
                    case ALU | XOR | K: r[d] = AluOps.xor32(r[d], (w >> 32)); break;
                    case ALU | XOR | X: r[d] = AluOps.xor32(r[d], r[s]); break;
                    case ALU | MOV | K: r[d] = AluOps.mov32((w >> 32)); break;
                    case ALU | MOV | X: r[d] = AluOps.mov32(r[s]); break;
                    case MOVSX32: r[d] = AluOps.movsx32(r[s], lo >> 16); break;
                    case ALU | ARSH | K: r[d] = AluOps.arsh32(r[d], (w >> 32)); break;
                    case ALU | ARSH | X: r[d] = AluOps.arsh32(r[d], r[s]); break;
                    case ALU | END | TO_LE: r[d] = AluOps.toLe(r[d], (int) (w >> 32)); break;
                    case ALU | END | TO_BE: r[d] = AluOps.bswap(r[d], (int) (w >> 32)); break;
                    // ---- lddw ----
                    case LDDW: r[d] = p.wide[pc]; pc += 2; continue;
                    // ---- legacy packet loads: out of range exits the frame with r0 = 0 ----
                    case LD | ABS | B: case LD | ABS | H: case LD | ABS | W:
                    case LD | IND | B: case LD | IND | H: case LD | IND | W:
                        if (m.loadPacket(w)) break;
                        r[0] = 0;
                        if (m.depth == base) { m.budgetLeft = budget; return 0; }
                        pc = m.leaveCall();
                        continue;
                    // ---- loads and stores relative to r10, proven in-frame at load time ----
                    case STACK_LDX_B: r[d] = NativeMemory.getByte(r[s] + (lo >> 16)) & 0xffL; break;
                    case STACK_LDX_H: r[d] = NativeMemory.getShort(r[s] + (lo >> 16)) & 0xffffL; break;
                    case STACK_LDX_W: r[d] = NativeMemory.getInt(r[s] + (lo >> 16)) & MASK32; break;
                    case STACK_LDX_DW: r[d] = NativeMemory.getLong(r[s] + (lo >> 16)); break;
                    case STACK_ST_B: NativeMemory.putByte(r[d] + (lo >> 16), (byte) (w >> 32)); break;
                    case STACK_ST_H: NativeMemory.putShort(r[d] + (lo >> 16), (short) (w >> 32)); break;
                    case STACK_ST_W: NativeMemory.putInt(r[d] + (lo >> 16), (int) (w >> 32)); break;
                    case STACK_ST_DW: NativeMemory.putLong(r[d] + (lo >> 16), (w >> 32)); break;
                    case STACK_STX_B: NativeMemory.putByte(r[d] + (lo >> 16), (byte) r[s]); break;
                    case STACK_STX_H: NativeMemory.putShort(r[d] + (lo >> 16), (short) r[s]); break;
                    case STACK_STX_W: NativeMemory.putInt(r[d] + (lo >> 16), (int) r[s]); break;
                    case STACK_STX_DW: NativeMemory.putLong(r[d] + (lo >> 16), r[s]); break;
                    // ---- checked loads and stores ----
                    case LDX | MEM | B: r[d] = m.load(r[s] + (lo >> 16), 1, pc); break;
                    case LDX | MEM | H: r[d] = m.load(r[s] + (lo >> 16), 2, pc); break;
                    case LDX | MEM | W: r[d] = m.load(r[s] + (lo >> 16), 4, pc); break;
                    case LDX | MEM | DW: r[d] = m.load(r[s] + (lo >> 16), 8, pc); break;
                    case LDX | MEMSX | B: r[d] = m.loadSx(r[s] + (lo >> 16), 1, pc); break;
                    case LDX | MEMSX | H: r[d] = m.loadSx(r[s] + (lo >> 16), 2, pc); break;
                    case LDX | MEMSX | W: r[d] = m.loadSx(r[s] + (lo >> 16), 4, pc); break;
                    case ST | MEM | B: m.store(r[d] + (lo >> 16), 1, (w >> 32), pc); break;
                    case ST | MEM | H: m.store(r[d] + (lo >> 16), 2, (w >> 32), pc); break;
                    case ST | MEM | W: m.store(r[d] + (lo >> 16), 4, (w >> 32), pc); break;
                    case ST | MEM | DW: m.store(r[d] + (lo >> 16), 8, (w >> 32), pc); break;
                    case STX | MEM | B: m.store(r[d] + (lo >> 16), 1, r[s], pc); break;
                    case STX | MEM | H: m.store(r[d] + (lo >> 16), 2, r[s], pc); break;
                    case STX | MEM | W: m.store(r[d] + (lo >> 16), 4, r[s], pc); break;
                    case STX | MEM | DW: m.store(r[d] + (lo >> 16), 8, r[s], pc); break;
                    case STX | ATOMIC | W: case STX | ATOMIC | DW: m.atomic(w, pc); break;
                    // ---- jumps: a taken jump leaves the switch through "taken" ----
                    case JMP | JA: break taken;
                    case JMP32 | JA: { // gotol: target pc in imm
                        int t = (int) (w >> 32);
                        if (t <= pc && --budget < 0) throw m.overBudget(pc);
                        pc = t;
                        continue;
                    }
                    case JMP | JEQ | K: if (JmpOps.jeq(r[d], (w >> 32))) break taken; break;
                    case JMP | JEQ | X: if (JmpOps.jeq(r[d], r[s])) break taken; break;
                    case JMP | JGT | K: if (JmpOps.jgt(r[d], (w >> 32))) break taken; break;
                    case JMP | JGT | X: if (JmpOps.jgt(r[d], r[s])) break taken; break;
                    case JMP | JGE | K: if (JmpOps.jge(r[d], (w >> 32))) break taken; break;
                    case JMP | JGE | X: if (JmpOps.jge(r[d], r[s])) break taken; break;
                    case JMP | JSET | K: if (JmpOps.jset(r[d], (w >> 32))) break taken; break;
                    case JMP | JSET | X: if (JmpOps.jset(r[d], r[s])) break taken; break;
                    case JMP | JNE | K: if (JmpOps.jne(r[d], (w >> 32))) break taken; break;
                    case JMP | JNE | X: if (JmpOps.jne(r[d], r[s])) break taken; break;
                    case JMP | JSGT | K: if (JmpOps.jsgt(r[d], (w >> 32))) break taken; break;
                    case JMP | JSGT | X: if (JmpOps.jsgt(r[d], r[s])) break taken; break;
                    case JMP | JSGE | K: if (JmpOps.jsge(r[d], (w >> 32))) break taken; break;
                    case JMP | JSGE | X: if (JmpOps.jsge(r[d], r[s])) break taken; break;
                    case JMP | JLT | K: if (JmpOps.jlt(r[d], (w >> 32))) break taken; break;
                    case JMP | JLT | X: if (JmpOps.jlt(r[d], r[s])) break taken; break;
                    case JMP | JLE | K: if (JmpOps.jle(r[d], (w >> 32))) break taken; break;
                    case JMP | JLE | X: if (JmpOps.jle(r[d], r[s])) break taken; break;
                    case JMP | JSLT | K: if (JmpOps.jslt(r[d], (w >> 32))) break taken; break;
                    case JMP | JSLT | X: if (JmpOps.jslt(r[d], r[s])) break taken; break;
                    case JMP | JSLE | K: if (JmpOps.jsle(r[d], (w >> 32))) break taken; break;
                    case JMP | JSLE | X: if (JmpOps.jsle(r[d], r[s])) break taken; break;
                    case JMP32 | JEQ | K: if (JmpOps.jeq32(r[d], (w >> 32))) break taken; break;
                    case JMP32 | JEQ | X: if (JmpOps.jeq32(r[d], r[s])) break taken; break;
                    case JMP32 | JGT | K: if (JmpOps.jgt32(r[d], (w >> 32))) break taken; break;
                    case JMP32 | JGT | X: if (JmpOps.jgt32(r[d], r[s])) break taken; break;
                    case JMP32 | JGE | K: if (JmpOps.jge32(r[d], (w >> 32))) break taken; break;
                    case JMP32 | JGE | X: if (JmpOps.jge32(r[d], r[s])) break taken; break;
                    case JMP32 | JSET | K: if (JmpOps.jset32(r[d], (w >> 32))) break taken; break;
                    case JMP32 | JSET | X: if (JmpOps.jset32(r[d], r[s])) break taken; break;
                    case JMP32 | JNE | K: if (JmpOps.jne32(r[d], (w >> 32))) break taken; break;
                    case JMP32 | JNE | X: if (JmpOps.jne32(r[d], r[s])) break taken; break;
                    case JMP32 | JSGT | K: if (JmpOps.jsgt32(r[d], (w >> 32))) break taken; break;
                    case JMP32 | JSGT | X: if (JmpOps.jsgt32(r[d], r[s])) break taken; break;
                    case JMP32 | JSGE | K: if (JmpOps.jsge32(r[d], (w >> 32))) break taken; break;
                    case JMP32 | JSGE | X: if (JmpOps.jsge32(r[d], r[s])) break taken; break;
                    case JMP32 | JLT | K: if (JmpOps.jlt32(r[d], (w >> 32))) break taken; break;
                    case JMP32 | JLT | X: if (JmpOps.jlt32(r[d], r[s])) break taken; break;
                    case JMP32 | JLE | K: if (JmpOps.jle32(r[d], (w >> 32))) break taken; break;
                    case JMP32 | JLE | X: if (JmpOps.jle32(r[d], r[s])) break taken; break;
                    case JMP32 | JSLT | K: if (JmpOps.jslt32(r[d], (w >> 32))) break taken; break;
                    case JMP32 | JSLT | X: if (JmpOps.jslt32(r[d], r[s])) break taken; break;
                    case JMP32 | JSLE | K: if (JmpOps.jsle32(r[d], (w >> 32))) break taken; break;
                    case JMP32 | JSLE | X: if (JmpOps.jsle32(r[d], r[s])) break taken; break;
                    // ---- calls and exit ----
                    case JMP | CALL:
                        if (s == CALL_HELPER) {
                            m.budgetLeft = budget; // callbacks spend the same budget
                            r[0] = m.callHelper(pc);
                            budget = m.budgetLeft;
                            if (m.stop) {
                                if (m.exited) return m.exitValue;
                                p = m.enterTailCall(); // same registers, same frame
                                code = p.code;
                                pc = 0;
                                continue;
                            }
                            break;
                        }
                        if (--budget < 0) throw m.overBudget(pc); // budget before depth
                        pc = m.enterCall(w, pc);
                        continue;
                    case JMP | EXIT:
                        if (m.depth == base) { m.budgetLeft = budget; return r[0]; }
                        pc = m.leaveCall();
                        continue;
                    default:
                        throw p.illegal(pc);
                }
                pc++;
                continue;
            }
            // A taken jump with a 16-bit offset; a back-edge (target <= pc) spends budget.
            final int off = lo >> 16;
            if (off < 0 && --budget < 0) throw m.overBudget(pc);
            pc += 1 + off;
        }
    }
}
