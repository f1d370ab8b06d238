package dev.bpf4j.interp;

import dev.bpf4j.isa.AluOps;
import dev.bpf4j.isa.JmpOps;

import dev.bpf4j.runtime.Limits;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunEntry;

import java.lang.constant.ConstantDescs;
import java.lang.invoke.MethodHandles;

import static dev.bpf4j.interp.InsnCode.*;
import static dev.bpf4j.interp.Registers.BUDGET;
import static dev.bpf4j.interp.Registers.READ_LEN;
import static dev.bpf4j.interp.Registers.READ_LO;
import static dev.bpf4j.interp.Registers.WRITE_LEN;
import static dev.bpf4j.interp.Registers.WRITE_LO;
import static dev.bpf4j.interp.Registers.dst;
import static dev.bpf4j.interp.Registers.setDst;
import static dev.bpf4j.interp.Registers.src;
import static dev.bpf4j.interp.Registers.third;
import static dev.bpf4j.isa.Opcodes.*;

/**
 * The hot half of the dispatch loop: every instruction that cannot fail and calls nothing (ALU,
 * superinstructions, lddw, r10-relative and in-window loads and stores, jumps, a plain array's
 * inlined lookup). It returns the pc
 * of the first instruction it does not run itself (calls, exit, atomics, legacy packet loads, an
 * access outside the memory window, a back-edge over budget, a trap) and {@link Interpreter}
 * runs that one. Because nothing here calls out, HotSpot keeps pc and the array bases in
 * registers instead of spilling them around calls: the pc chain through memory costs more than the
 * instructions themselves. The budget stays in its slot of {@code r}, read and written at each
 * back-edge: as a local it took one more register across the whole loop, and C2 then moved pc
 * into an xmm register in half of parse's compiles (docs/interpreter.md section 10). Like
 * {@link Interpreter#execute}, it must stay under 8,000 bytecode bytes ({@code DispatchMethodSizeTest}).
 */
@RunEntry // part of the engine loop: never a frame of a Java caller stack
final class HotLoop implements DispatchLoop {
    private HotLoop() {} // instances exist only as a program's own copy, see OwnLoops

    @Override public int runFrom(long[] code, long[] r, int pc) { return run(code, r, pc); }

    static final long MASK32 = 0xffffffffL;

    /**
     * The program's code when this class is a program's own copy (its class data, see {@link OwnLoops}),
     * null in the shared loop. A static final, so C2 folds it into a constant in the copy: the code
     * array then holds no register of its own across the dispatch.
     */
    private static final long[] OWN_CODE = ownCode();

    private static long[] ownCode() {
        try {
            return MethodHandles.classData(MethodHandles.lookup(), ConstantDescs.DEFAULT_NAME, long[].class);
        } catch (IllegalAccessException e) {
            return null;
        }
    }

    /**
     * {@code pc + 1}: the pc of a fused pair's jump, returned when its back-edge has no budget left.
     * Written so that C2 does not merge it with the loop's own {@code pc + 1}; a value that several
     * cases compute is hoisted above the switch and holds a register on every dispatch (the fused
     * jumps also step the budget by {@code jo >> 63} rather than by {@code - 1} for the same
     * reason). With both, sort ran at 1.60 instead of 1.80 ns per instruction (docs/interpreter.md).
     */
    private static long jumpPc(long pc) { return ~(~pc - 1); }

    /**
     * The 16-bit offset field (bits 16..31) of an instruction word, sign-extended, as a long: the
     * loop's pc is a long, and an offset decoded as an int would cost a conversion at every taken jump.
     */
    private static long offset(long w) { return (w << 32) >> 48; }

    /**
     * Runs from {@code pc} while it can; returns the pc of the instruction {@link Interpreter} must
     * run. Spends the budget in slot {@link Registers#BUDGET} of {@code r}; a back-edge with no
     * budget left is returned untaken, with the budget unchanged.
     */
    static int run(long[] code, long[] r, int entryPc) {
        if (OWN_CODE != null) code = OWN_CODE; // the same array, as a constant
        long pc = entryPc; // a long, as are the jump offsets: no int-to-long conversion per dispatch (sort 1.6 -> 1.3 ns/insn)
        run:
        for (;;) {
            final long w = Registers.word(code, pc);
            final int lo = (int) w;
            pair:
            { // lddw and the fused pairs leave the switch through "pair", a taken jump through "taken"
            taken:
            {
                switch (lo & 0xff) {
                    // ---- ALU64 ----
                    case ALU64 | ADD | K: setDst(r, w, AluOps.add64(dst(r, w), (w >> 32))); break;
                    case ALU64 | ADD | X: setDst(r, w, AluOps.add64(dst(r, w), src(r, w))); break;
                    case ALU64 | SUB | K: setDst(r, w, AluOps.sub64(dst(r, w), (w >> 32))); break;
                    case ALU64 | SUB | X: setDst(r, w, AluOps.sub64(dst(r, w), src(r, w))); break;
                    case ALU64 | MUL | K: setDst(r, w, AluOps.mul64(dst(r, w), (w >> 32))); break;
                    case ALU64 | MUL | X: setDst(r, w, AluOps.mul64(dst(r, w), src(r, w))); break;
                    case ALU64 | DIV | K: setDst(r, w, (lo >> 16) == 0 ? AluOps.div64(dst(r, w), (w >> 32)) : AluOps.sdiv64(dst(r, w), (w >> 32))); break;
                    case ALU64 | DIV | X: setDst(r, w, (lo >> 16) == 0 ? AluOps.div64(dst(r, w), src(r, w)) : AluOps.sdiv64(dst(r, w), src(r, w))); break;
                    case ALU64 | OR | K: setDst(r, w, AluOps.or64(dst(r, w), (w >> 32))); break;
                    case ALU64 | OR | X: setDst(r, w, AluOps.or64(dst(r, w), src(r, w))); break;
                    case ALU64 | AND | K: setDst(r, w, AluOps.and64(dst(r, w), (w >> 32))); break;
                    case ALU64 | AND | X: setDst(r, w, AluOps.and64(dst(r, w), src(r, w))); break;
                    case ALU64 | LSH | K: setDst(r, w, AluOps.lsh64(dst(r, w), (w >> 32))); break;
                    case ALU64 | LSH | X: setDst(r, w, AluOps.lsh64(dst(r, w), src(r, w))); break;
                    case ALU64 | RSH | K: setDst(r, w, AluOps.rsh64(dst(r, w), (w >> 32))); break;
                    case ALU64 | RSH | X: setDst(r, w, AluOps.rsh64(dst(r, w), src(r, w))); break;
                    case ALU64 | NEG: setDst(r, w, AluOps.neg64(dst(r, w))); break;
                    case ALU64 | MOD | K: setDst(r, w, (lo >> 16) == 0 ? AluOps.mod64(dst(r, w), (w >> 32)) : AluOps.smod64(dst(r, w), (w >> 32))); break;
                    case ALU64 | MOD | X: setDst(r, w, (lo >> 16) == 0 ? AluOps.mod64(dst(r, w), src(r, w)) : AluOps.smod64(dst(r, w), src(r, w))); break;
                    case ALU64 | XOR | K: setDst(r, w, AluOps.xor64(dst(r, w), (w >> 32))); break;
                    case ALU64 | XOR | X: setDst(r, w, AluOps.xor64(dst(r, w), src(r, w))); break;
                    case ALU64 | MOV | K: setDst(r, w, (w >> 32)); break;
                    case ALU64 | MOV | X: setDst(r, w, src(r, w)); break;
                    case MOVSX64: setDst(r, w, AluOps.movsx64(src(r, w), lo >> 16)); break;
                    case ALU64 | ARSH | K: setDst(r, w, AluOps.arsh64(dst(r, w), (w >> 32))); break;
                    case ALU64 | ARSH | X: setDst(r, w, AluOps.arsh64(dst(r, w), src(r, w))); break;
                    case ALU64 | END | TO_LE: setDst(r, w, AluOps.bswap(dst(r, w), (int) (w >> 32))); break;
                    // ---- ALU (32-bit, zero-extended) ----
                    case ALU | ADD | K: setDst(r, w, AluOps.add32(dst(r, w), (w >> 32))); break;
                    case ALU | ADD | X: setDst(r, w, AluOps.add32(dst(r, w), src(r, w))); break;
                    case ALU | SUB | K: setDst(r, w, AluOps.sub32(dst(r, w), (w >> 32))); break;
                    case ALU | SUB | X: setDst(r, w, AluOps.sub32(dst(r, w), src(r, w))); break;
                    case ALU | MUL | K: setDst(r, w, AluOps.mul32(dst(r, w), (w >> 32))); break;
                    case ALU | MUL | X: setDst(r, w, AluOps.mul32(dst(r, w), src(r, w))); break;
                    case ALU | DIV | K: setDst(r, w, (lo >> 16) == 0 ? AluOps.div32(dst(r, w), (w >> 32)) : AluOps.sdiv32(dst(r, w), (w >> 32))); break;
                    case ALU | DIV | X: setDst(r, w, (lo >> 16) == 0 ? AluOps.div32(dst(r, w), src(r, w)) : AluOps.sdiv32(dst(r, w), src(r, w))); break;
                    case ALU | OR | K: setDst(r, w, AluOps.or32(dst(r, w), (w >> 32))); break;
                    case ALU | OR | X: setDst(r, w, AluOps.or32(dst(r, w), src(r, w))); break;
                    case ALU | AND | K: setDst(r, w, AluOps.and32(dst(r, w), (w >> 32))); break;
                    case ALU | AND | X: setDst(r, w, AluOps.and32(dst(r, w), src(r, w))); break;
                    case ALU | LSH | K: setDst(r, w, AluOps.lsh32(dst(r, w), (w >> 32))); break;
                    case ALU | LSH | X: setDst(r, w, AluOps.lsh32(dst(r, w), src(r, w))); break;
                    case ALU | RSH | K: setDst(r, w, AluOps.rsh32(dst(r, w), (w >> 32))); break;
                    case ALU | RSH | X: setDst(r, w, AluOps.rsh32(dst(r, w), src(r, w))); break;
                    case ALU | NEG: setDst(r, w, AluOps.neg32(dst(r, w))); break;
                    case ALU | MOD | K: setDst(r, w, (lo >> 16) == 0 ? AluOps.mod32(dst(r, w), (w >> 32)) : AluOps.smod32(dst(r, w), (w >> 32))); break;
                    case ALU | MOD | X: setDst(r, w, (lo >> 16) == 0 ? AluOps.mod32(dst(r, w), src(r, w)) : AluOps.smod32(dst(r, w), src(r, w))); break;
                    case ALU | XOR | K: setDst(r, w, AluOps.xor32(dst(r, w), (w >> 32))); break;
                    case ALU | XOR | X: setDst(r, w, AluOps.xor32(dst(r, w), src(r, w))); break;
                    case ALU | MOV | K: setDst(r, w, AluOps.mov32((w >> 32))); break;
                    case ALU | MOV | X: setDst(r, w, AluOps.mov32(src(r, w))); break;
                    case MOVSX32: setDst(r, w, AluOps.movsx32(src(r, w), lo >> 16)); break;
                    case ALU | ARSH | K: setDst(r, w, AluOps.arsh32(dst(r, w), (w >> 32))); break;
                    case ALU | ARSH | X: setDst(r, w, AluOps.arsh32(dst(r, w), src(r, w))); break;
                    case ALU | END | TO_LE: setDst(r, w, AluOps.toLe(dst(r, w), (int) (w >> 32))); break;
                    case ALU | END | TO_BE: setDst(r, w, AluOps.bswap(dst(r, w), (int) (w >> 32))); break;
                    // ---- lddw ----
                    case LDDW: setDst(r, w, Registers.word(code, (int) (w >> 32))); break pair;
                    // ---- superinstructions: rX = rY op K|rZ (see Superinstructions) ----
                    case MOV_ADD_K: setDst(r, w, src(r, w) + (w >> 32)); break pair;
                    case MOV_ADD_X: setDst(r, w, src(r, w) + third(r, code, pc)); break pair;
                    case MOV_SUB_K: setDst(r, w, src(r, w) - (w >> 32)); break pair;
                    case MOV_SUB_X: setDst(r, w, src(r, w) - third(r, code, pc)); break pair;
                    case MOV_MUL_K: setDst(r, w, src(r, w) * (w >> 32)); break pair;
                    case MOV_MUL_X: setDst(r, w, src(r, w) * third(r, code, pc)); break pair;
                    case MOV_OR_K: setDst(r, w, src(r, w) | (w >> 32)); break pair;
                    case MOV_OR_X: setDst(r, w, src(r, w) | third(r, code, pc)); break pair;
                    case MOV_AND_K: setDst(r, w, src(r, w) & (w >> 32)); break pair;
                    case MOV_AND_X: setDst(r, w, src(r, w) & third(r, code, pc)); break pair;
                    case MOV_LSH_K: setDst(r, w, src(r, w) << (w >> 32)); break pair;
                    case MOV_LSH_X: setDst(r, w, src(r, w) << third(r, code, pc)); break pair;
                    case MOV_RSH_K: setDst(r, w, src(r, w) >>> (w >> 32)); break pair;
                    case MOV_RSH_X: setDst(r, w, src(r, w) >>> third(r, code, pc)); break pair;
                    case MOV_XOR_K: setDst(r, w, src(r, w) ^ (w >> 32)); break pair;
                    case MOV_XOR_X: setDst(r, w, src(r, w) ^ third(r, code, pc)); break pair;
                    case MOV_ARSH_K: setDst(r, w, src(r, w) >> (w >> 32)); break pair;
                    case MOV_DIV_K: setDst(r, w, AluOps.div64(src(r, w), w >> 32)); break pair;
                    case MOV_DIV_X: setDst(r, w, AluOps.div64(src(r, w), third(r, code, pc))); break pair;
                    case MOV_MOD_K: setDst(r, w, AluOps.mod64(src(r, w), w >> 32)); break pair;
                    case MOV_MOD_X: setDst(r, w, AluOps.mod64(src(r, w), third(r, code, pc))); break pair;
                    case MOV32_AND_K: setDst(r, w, AluOps.and32(src(r, w), w >> 32)); break pair;
                    case MOV32_ADD_K: setDst(r, w, AluOps.add32(src(r, w), w >> 32)); break pair;
                    case MOV32_LSH_K: setDst(r, w, AluOps.lsh32(src(r, w), w >> 32)); break pair;
                    case MOV32_RSH_K: setDst(r, w, AluOps.rsh32(src(r, w), w >> 32)); break pair;
                    // ---- loop pairs: the second half comes from the next slot's own word (see Superinstructions) ----
                    case LDXW_JLE32_X: { // outside the window: the driver runs the load alone
                        long a = src(r, w) + (lo >> 16), o = a - Registers.slot(r, READ_LO);
                        if (o < 0 || o > Registers.slot(r, READ_LEN) - 4) break run;
                        setDst(r, w, NativeMemory.getInt(a) & MASK32);
                        final long j = Registers.next(code, pc);
                        if (!JmpOps.jle32(dst(r, j), src(r, j))) { break pair; }
                        final long jo = offset(j);
                        if (jo < 0) { final long b = Registers.slot(r, BUDGET); if (b == 0) { pc = jumpPc(pc); break run; } Registers.setSlot(r, BUDGET, b + (jo >> 63)); } // -1, see jumpPc
                        pc += 2 + jo;
                        continue;
                    }
                    case LDXB_LSH_K: { // outside the window: the driver runs the load alone
                        long a = src(r, w) + (lo >> 16), o = a - Registers.slot(r, READ_LO);
                        if (o < 0 || o > Registers.slot(r, READ_LEN) - 1) break run;
                        setDst(r, w, NativeMemory.getByte(a) & 0xffL);
                        final long v = Registers.next(code, pc);
                        setDst(r, v, dst(r, v) << (v >> 32));
                        break pair;
                    }
                    case STXW_STXW: { // both inside the window, else the driver runs the first alone
                        final long v = Registers.next(code, pc);
                        long a = dst(r, w) + (lo >> 16), o = a - Registers.slot(r, WRITE_LO), b = dst(r, v) + ((int) v >> 16), ob = b - Registers.slot(r, WRITE_LO);
                        if (o < 0 || o > Registers.slot(r, WRITE_LEN) - 4 || ob < 0 || ob > Registers.slot(r, WRITE_LEN) - 4) break run;
                        NativeMemory.putInt(a, (int) src(r, w)); NativeMemory.putInt(b, (int) src(r, v)); break pair;
                    }
                    case ADD_ADD_K: { setDst(r, w, dst(r, w) + (w >> 32)); final long v = Registers.next(code, pc); setDst(r, v, dst(r, v) + (v >> 32)); break pair; }
                    case MOV32_JLT_X: {
                        setDst(r, w, src(r, w) & MASK32);
                        final long j = Registers.next(code, pc);
                        if (!JmpOps.jlt(dst(r, j), src(r, j))) { break pair; }
                        final long jo = offset(j);
                        if (jo < 0) { final long b = Registers.slot(r, BUDGET); if (b == 0) { pc = jumpPc(pc); break run; } Registers.setSlot(r, BUDGET, b + (jo >> 63)); } // -1, see jumpPc
                        pc += 2 + jo;
                        continue;
                    }
                    case MOV32_JA: {
                        setDst(r, w, src(r, w) & MASK32);
                        final long jo = offset(Registers.next(code, pc));
                        if (jo < 0) { final long b = Registers.slot(r, BUDGET); if (b == 0) { pc = jumpPc(pc); break run; } Registers.setSlot(r, BUDGET, b + (jo >> 63)); } // -1, see jumpPc
                        pc += 2 + jo;
                        continue;
                    }
                    // ---- loads and stores relative to r10, proven in-frame at load time ----
                    case STACK_LDX_B: setDst(r, w, NativeMemory.getByte(src(r, w) + (lo >> 16)) & 0xffL); break;
                    case STACK_LDX_H: setDst(r, w, NativeMemory.getShort(src(r, w) + (lo >> 16)) & 0xffffL); break;
                    case STACK_LDX_W: setDst(r, w, NativeMemory.getInt(src(r, w) + (lo >> 16)) & MASK32); break;
                    case STACK_LDX_DW: setDst(r, w, NativeMemory.getLong(src(r, w) + (lo >> 16))); break;
                    case STACK_ST_B: NativeMemory.putByte(dst(r, w) + (lo >> 16), (byte) (w >> 32)); break;
                    case STACK_ST_H: NativeMemory.putShort(dst(r, w) + (lo >> 16), (short) (w >> 32)); break;
                    case STACK_ST_W: NativeMemory.putInt(dst(r, w) + (lo >> 16), (int) (w >> 32)); break;
                    case STACK_ST_DW: NativeMemory.putLong(dst(r, w) + (lo >> 16), (w >> 32)); break;
                    case STACK_STX_B: NativeMemory.putByte(dst(r, w) + (lo >> 16), (byte) src(r, w)); break;
                    case STACK_STX_H: NativeMemory.putShort(dst(r, w) + (lo >> 16), (short) src(r, w)); break;
                    case STACK_STX_W: NativeMemory.putInt(dst(r, w) + (lo >> 16), (int) src(r, w)); break;
                    case STACK_STX_DW: NativeMemory.putLong(dst(r, w) + (lo >> 16), src(r, w)); break;
                    // ---- checked loads and stores: inside the window, else the driver checks them ----
                    case LDX | MEM | B: { long a = src(r, w) + (lo >> 16), o = a - Registers.slot(r, READ_LO); if (o < 0 || o > Registers.slot(r, READ_LEN) - 1) break run; setDst(r, w, NativeMemory.getByte(a) & 0xffL); break; }
                    case LDX | MEM | H: { long a = src(r, w) + (lo >> 16), o = a - Registers.slot(r, READ_LO); if (o < 0 || o > Registers.slot(r, READ_LEN) - 2) break run; setDst(r, w, NativeMemory.getShort(a) & 0xffffL); break; }
                    case LDX | MEM | W: { long a = src(r, w) + (lo >> 16), o = a - Registers.slot(r, READ_LO); if (o < 0 || o > Registers.slot(r, READ_LEN) - 4) break run; setDst(r, w, NativeMemory.getInt(a) & MASK32); break; }
                    case LDX | MEM | DW: { long a = src(r, w) + (lo >> 16), o = a - Registers.slot(r, READ_LO); if (o < 0 || o > Registers.slot(r, READ_LEN) - 8) break run; setDst(r, w, NativeMemory.getLong(a)); break; }
                    case LDX | MEMSX | B: { long a = src(r, w) + (lo >> 16), o = a - Registers.slot(r, READ_LO); if (o < 0 || o > Registers.slot(r, READ_LEN) - 1) break run; setDst(r, w, NativeMemory.getByte(a)); break; }
                    case LDX | MEMSX | H: { long a = src(r, w) + (lo >> 16), o = a - Registers.slot(r, READ_LO); if (o < 0 || o > Registers.slot(r, READ_LEN) - 2) break run; setDst(r, w, NativeMemory.getShort(a)); break; }
                    case LDX | MEMSX | W: { long a = src(r, w) + (lo >> 16), o = a - Registers.slot(r, READ_LO); if (o < 0 || o > Registers.slot(r, READ_LEN) - 4) break run; setDst(r, w, NativeMemory.getInt(a)); break; }
                    case ST | MEM | B: { long a = dst(r, w) + (lo >> 16), o = a - Registers.slot(r, WRITE_LO); if (o < 0 || o > Registers.slot(r, WRITE_LEN) - 1) break run; NativeMemory.putByte(a, (byte) (w >> 32)); break; }
                    case ST | MEM | H: { long a = dst(r, w) + (lo >> 16), o = a - Registers.slot(r, WRITE_LO); if (o < 0 || o > Registers.slot(r, WRITE_LEN) - 2) break run; NativeMemory.putShort(a, (short) (w >> 32)); break; }
                    case ST | MEM | W: { long a = dst(r, w) + (lo >> 16), o = a - Registers.slot(r, WRITE_LO); if (o < 0 || o > Registers.slot(r, WRITE_LEN) - 4) break run; NativeMemory.putInt(a, (int) (w >> 32)); break; }
                    case ST | MEM | DW: { long a = dst(r, w) + (lo >> 16), o = a - Registers.slot(r, WRITE_LO); if (o < 0 || o > Registers.slot(r, WRITE_LEN) - 8) break run; NativeMemory.putLong(a, w >> 32); break; }
                    case STX | MEM | B: { long a = dst(r, w) + (lo >> 16), o = a - Registers.slot(r, WRITE_LO); if (o < 0 || o > Registers.slot(r, WRITE_LEN) - 1) break run; NativeMemory.putByte(a, (byte) src(r, w)); break; }
                    case STX | MEM | H: { long a = dst(r, w) + (lo >> 16), o = a - Registers.slot(r, WRITE_LO); if (o < 0 || o > Registers.slot(r, WRITE_LEN) - 2) break run; NativeMemory.putShort(a, (short) src(r, w)); break; }
                    case STX | MEM | W: { long a = dst(r, w) + (lo >> 16), o = a - Registers.slot(r, WRITE_LO); if (o < 0 || o > Registers.slot(r, WRITE_LEN) - 4) break run; NativeMemory.putInt(a, (int) src(r, w)); break; }
                    case STX | MEM | DW: { long a = dst(r, w) + (lo >> 16), o = a - Registers.slot(r, WRITE_LO); if (o < 0 || o > Registers.slot(r, WRITE_LEN) - 8) break run; NativeMemory.putLong(a, src(r, w)); break; }
                    // ---- jumps: a taken jump leaves the switch through "taken" ----
                    case JMP | JA: break taken;
                    case JMP32 | JA: { // gotol: target pc in imm
                        int t = (int) (w >> 32);
                        if (t <= pc) {
                            final long b = Registers.slot(r, BUDGET);
                            if (b == 0) break run;
                            Registers.setSlot(r, BUDGET, b - 1);
                        }
                        pc = t;
                        continue;
                    }
                    case JMP | JEQ | K: if (JmpOps.jeq(dst(r, w), (w >> 32))) break taken; break;
                    case JMP | JEQ | X: if (JmpOps.jeq(dst(r, w), src(r, w))) break taken; break;
                    case JMP | JGT | K: if (JmpOps.jgt(dst(r, w), (w >> 32))) break taken; break;
                    case JMP | JGT | X: if (JmpOps.jgt(dst(r, w), src(r, w))) break taken; break;
                    case JMP | JGE | K: if (JmpOps.jge(dst(r, w), (w >> 32))) break taken; break;
                    case JMP | JGE | X: if (JmpOps.jge(dst(r, w), src(r, w))) break taken; break;
                    case JMP | JSET | K: if (JmpOps.jset(dst(r, w), (w >> 32))) break taken; break;
                    case JMP | JSET | X: if (JmpOps.jset(dst(r, w), src(r, w))) break taken; break;
                    case JMP | JNE | K: if (JmpOps.jne(dst(r, w), (w >> 32))) break taken; break;
                    case JMP | JNE | X: if (JmpOps.jne(dst(r, w), src(r, w))) break taken; break;
                    case JMP | JSGT | K: if (JmpOps.jsgt(dst(r, w), (w >> 32))) break taken; break;
                    case JMP | JSGT | X: if (JmpOps.jsgt(dst(r, w), src(r, w))) break taken; break;
                    case JMP | JSGE | K: if (JmpOps.jsge(dst(r, w), (w >> 32))) break taken; break;
                    case JMP | JSGE | X: if (JmpOps.jsge(dst(r, w), src(r, w))) break taken; break;
                    case JMP | JLT | K: if (JmpOps.jlt(dst(r, w), (w >> 32))) break taken; break;
                    case JMP | JLT | X: if (JmpOps.jlt(dst(r, w), src(r, w))) break taken; break;
                    case JMP | JLE | K: if (JmpOps.jle(dst(r, w), (w >> 32))) break taken; break;
                    case JMP | JLE | X: if (JmpOps.jle(dst(r, w), src(r, w))) break taken; break;
                    case JMP | JSLT | K: if (JmpOps.jslt(dst(r, w), (w >> 32))) break taken; break;
                    case JMP | JSLT | X: if (JmpOps.jslt(dst(r, w), src(r, w))) break taken; break;
                    case JMP | JSLE | K: if (JmpOps.jsle(dst(r, w), (w >> 32))) break taken; break;
                    case JMP | JSLE | X: if (JmpOps.jsle(dst(r, w), src(r, w))) break taken; break;
                    case JMP32 | JEQ | K: if (JmpOps.jeq32(dst(r, w), Registers.imm(code, pc))) break taken; break;
                    case JMP32 | JEQ | X: if (JmpOps.jeq32(dst(r, w), src(r, w))) break taken; break;
                    case JMP32 | JGT | K: if (JmpOps.jgt32(dst(r, w), Registers.imm(code, pc))) break taken; break;
                    case JMP32 | JGT | X: if (JmpOps.jgt32(dst(r, w), src(r, w))) break taken; break;
                    case JMP32 | JGE | K: if (JmpOps.jge32(dst(r, w), Registers.imm(code, pc))) break taken; break;
                    case JMP32 | JGE | X: if (JmpOps.jge32(dst(r, w), src(r, w))) break taken; break;
                    case JMP32 | JSET | K: if (JmpOps.jset32(dst(r, w), Registers.imm(code, pc))) break taken; break;
                    case JMP32 | JSET | X: if (JmpOps.jset32(dst(r, w), src(r, w))) break taken; break;
                    case JMP32 | JNE | K: if (JmpOps.jne32(dst(r, w), Registers.imm(code, pc))) break taken; break;
                    case JMP32 | JNE | X: if (JmpOps.jne32(dst(r, w), src(r, w))) break taken; break;
                    case JMP32 | JSGT | K: if (JmpOps.jsgt32(dst(r, w), Registers.imm(code, pc))) break taken; break;
                    case JMP32 | JSGT | X: if (JmpOps.jsgt32(dst(r, w), src(r, w))) break taken; break;
                    case JMP32 | JSGE | K: if (JmpOps.jsge32(dst(r, w), Registers.imm(code, pc))) break taken; break;
                    case JMP32 | JSGE | X: if (JmpOps.jsge32(dst(r, w), src(r, w))) break taken; break;
                    case JMP32 | JLT | K: if (JmpOps.jlt32(dst(r, w), Registers.imm(code, pc))) break taken; break;
                    case JMP32 | JLT | X: if (JmpOps.jlt32(dst(r, w), src(r, w))) break taken; break;
                    case JMP32 | JLE | K: if (JmpOps.jle32(dst(r, w), Registers.imm(code, pc))) break taken; break;
                    case JMP32 | JLE | X: if (JmpOps.jle32(dst(r, w), src(r, w))) break taken; break;
                    case JMP32 | JSLT | K: if (JmpOps.jslt32(dst(r, w), Registers.imm(code, pc))) break taken; break;
                    case JMP32 | JSLT | X: if (JmpOps.jslt32(dst(r, w), src(r, w))) break taken; break;
                    case JMP32 | JSLE | K: if (JmpOps.jsle32(dst(r, w), Registers.imm(code, pc))) break taken; break;
                    case JMP32 | JSLE | X: if (JmpOps.jsle32(dst(r, w), src(r, w))) break taken; break;
                    // ---- bpf_map_lookup_elem on a constant plain array (dev.bpf4j.helpers.MapHelperInlining's checks, with its layout in the constants) ----
                    case InsnCode.INLINE_ARRAY_LOOKUP: { // the key in the frame and the map open, else the driver
                        final int k = (int) (w >> 32);
                        final long key = Registers.slot(r, 2), o = key - Registers.slot(r, 10) + Limits.STACK_SIZE;
                        if (o < 0 || o > Limits.STACK_SIZE - 4 || NativeMemory.getLong(Registers.word(code, k)) == 0) break run;
                        final int i = NativeMemory.getInt(key);
                        Registers.setSlot(r, 0, Integer.compareUnsigned(i, (int) Registers.word(code, k + 2)) < 0
                                ? Registers.word(code, k + 1) + i * Registers.word(code, k + 3) : 0);
                        break;
                    }
                    default: // calls, exit, atomics, legacy packet loads, traps
                        break run;
                }
                pc++;
                continue;
            }
            // A taken jump with a 16-bit offset; a back-edge (target <= pc) spends budget.
            final long off = offset(w);
            if (off < 0) {
                final long b = Registers.slot(r, BUDGET);
                if (b == 0) break;
                Registers.setSlot(r, BUDGET, b - 1);
            }
            pc += 1 + off;
            continue;
            } // pair
            // lddw or a fused pair: pc + 2 in one place. Computed in each case, as before, GVN merged
            // them into one value that C2 computed above the switch on every dispatch.
            pc += 2;
        }
        return (int) pc;
    }
}
