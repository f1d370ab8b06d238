package dev.bpf4j.jit.compiler;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.jit.x86.Shift;
import dev.bpf4j.jit.x86.X86Encoder;

/**
 * ALU and ALU64 instructions. 32-bit forms use 32-bit x86 operations, which zero-extend into the
 * full register: no separate zero-extension is needed.
 */
final class AluEmitter {
    private AluEmitter() {}

    static void emit(JitContext c, int pc, Insn i) {
        X86Encoder e = c.e;
        boolean w = i.cls() == Opcodes.ALU64;
        boolean x = Opcodes.source(i.opcode()) == Opcodes.X;
        int op = Opcodes.op(i.opcode());
        X86Reg dst = RegMap.x86(i.dst());
        switch (op) {
            case Opcodes.ADD: twoOperand(e, AluOp.ADD, w, x, dst, i); break;
            case Opcodes.SUB: twoOperand(e, AluOp.SUB, w, x, dst, i); break;
            case Opcodes.OR: twoOperand(e, AluOp.OR, w, x, dst, i); break;
            case Opcodes.AND: twoOperand(e, AluOp.AND, w, x, dst, i); break;
            case Opcodes.XOR: twoOperand(e, AluOp.XOR, w, x, dst, i); break;
            case Opcodes.MUL:
                if (x) e.imulRR(w, dst, RegMap.x86(i.src()));            /* imul dst, src */
                else e.imulRRI(w, dst, dst, i.imm());                    /* imul dst, dst, imm */
                break;
            case Opcodes.MOV: mov(c, pc, i, w, x, dst); break;
            case Opcodes.NEG: e.neg(w, dst); break;                      /* neg dst */
            case Opcodes.LSH: ShiftEmitter.emit(e, Shift.SHL, w, x, dst, i); break;
            case Opcodes.RSH: ShiftEmitter.emit(e, Shift.SHR, w, x, dst, i); break;
            case Opcodes.ARSH: ShiftEmitter.emit(e, Shift.SAR, w, x, dst, i); break;
            case Opcodes.DIV:
            case Opcodes.MOD:
                if (i.off() != 0 && i.off() != 1) throw c.error(pc, "bad offset " + i.off() + " for div/mod");
                DivModEmitter.emit(e, w, op == Opcodes.MOD, i.off() == 1, x, dst, i);
                break;
            case Opcodes.END: byteSwap(c, pc, i, w, x, dst); break;
            default: throw c.error(pc, String.format("unknown ALU opcode 0x%02x", i.opcode()));
        }
    }

    private static void twoOperand(X86Encoder e, AluOp op, boolean w, boolean x, X86Reg dst, Insn i) {
        if (x) e.aluRR(op, w, dst, RegMap.x86(i.src()));  /* op dst, src */
        else e.aluRI(op, w, dst, i.imm());                /* op dst, imm (sign-extended) */
    }

    private static void mov(JitContext c, int pc, Insn i, boolean w, boolean x, X86Reg dst) {
        X86Encoder e = c.e;
        if (!x) {
            if (w) e.loadImm64(dst, i.imm());                 /* mov dst, simm32 */
            else if (i.imm() == 0) e.aluRR(AluOp.XOR, false, dst, dst); /* xor dst32, dst32 */
            else e.movImm32(dst, i.imm());                    /* mov dst32, imm32 */
            return;
        }
        X86Reg src = RegMap.x86(i.src());
        switch (i.off()) {
            case 0: e.movRR(w, dst, src); break;              /* mov dst, src */
            case 8: e.movsx8(w, dst, src); break;             /* movsx dst, src8 */
            case 16: e.movsx16(w, dst, src); break;           /* movsx dst, src16 */
            case 32:
                if (!w) throw c.error(pc, "movsx32 needs ALU64");
                e.movsxd(dst, src);                           /* movsxd dst, src32 */
                break;
            default: throw c.error(pc, "bad movsx offset " + i.off());
        }
    }

    private static void byteSwap(JitContext c, int pc, Insn i, boolean w, boolean x, X86Reg dst) {
        X86Encoder e = c.e;
        boolean swap = w || x; // ALU64 END is bswap; ALU END with TO_BE swaps on little-endian x86.
        if (w && x) throw c.error(pc, "reserved ALU64 END source bit");
        switch (i.imm()) {
            case 16:
                if (swap) e.rol16By8(dst);                    /* rol dst16, 8 */
                e.movzx16(dst, dst);                          /* movzx dst32, dst16 */
                break;
            case 32:
                if (swap) e.bswap(false, dst);                /* bswap dst32 */
                else e.movRR(false, dst, dst);                /* mov dst32, dst32 */
                break;
            case 64:
                if (swap) e.bswap(true, dst);                 /* bswap dst */
                break;
            default: throw c.error(pc, "bad byte-swap width " + i.imm());
        }
    }
}
