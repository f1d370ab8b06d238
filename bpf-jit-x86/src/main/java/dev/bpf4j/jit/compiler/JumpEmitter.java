package dev.bpf4j.jit.compiler;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.jit.x86.X86Encoder;

/**
 * JMP and JMP32: {@code ja}/{@code gotol}, conditional jumps and {@code exit}. A taken jump to a
 * target at or before its own pc is a budget event, counted only on the taken path.
 */
final class JumpEmitter {
    private JumpEmitter() {}

    static void emit(JitContext c, int pc, Insn i) {
        int op = Opcodes.op(i.opcode());
        boolean jmp32 = i.cls() == Opcodes.JMP32;
        switch (op) {
            case Opcodes.JA: {
                int target = pc + 1 + (jmp32 ? i.imm() : i.off());
                checkTarget(c, pc, target);
                if (target <= pc) c.backEdge(pc, target);      /* sub r9, 1; jae target; raise */
                else c.jumpBy(null, c.jumpDistance(pc, target)); /* jmp target */
                return;
            }
            case Opcodes.CALL:
                if (jmp32) throw c.error(pc, "call in JMP32 class");
                CallEmitter.emit(c, pc, i);
                return;
            case Opcodes.EXIT: {
                if (jmp32) throw c.error(pc, "exit in JMP32 class");
                int rel = c.exitDistance(pc);
                if (rel != 0 || c.forceLongJumps) c.jumpBy(null, rel); /* jmp epilogue */
                return;
            }
            default:
                conditional(c, pc, i, op, !jmp32);
        }
    }

    private static void conditional(JitContext c, int pc, Insn i, int op, boolean w) {
        X86Encoder e = c.e;
        Cond cond = condition(c, pc, op);
        X86Reg dst = RegMap.x86(i.dst());
        boolean x = Opcodes.source(i.opcode()) == Opcodes.X;
        if (op == Opcodes.JSET) {
            if (x) e.testRR(w, dst, RegMap.x86(i.src()));      /* test dst, src */
            else e.testRI(w, dst, i.imm());                    /* test dst, imm */
        } else if (x) {
            e.aluRR(AluOp.CMP, w, dst, RegMap.x86(i.src()));   /* cmp dst, src */
        } else if (i.imm() == 0) {
            e.testRR(w, dst, dst);                             /* test dst, dst (same flags as cmp dst, 0) */
        } else {
            e.aluRI(AluOp.CMP, w, dst, i.imm());               /* cmp dst, imm */
        }
        int target = pc + 1 + i.off();
        checkTarget(c, pc, target);
        if (target > pc || c.elideBudget) {
            c.jumpBy(cond, c.jumpDistance(pc, target));        /* jcc target */
            return;
        }
        int notTaken = e.jccForward8(cond.negate());          /* j!cc .not_taken */
        c.backEdge(pc, target);                                /* sub r9, 1; jae target; raise */
        e.bind(notTaken);                                      /* .not_taken: */
    }

    private static void checkTarget(JitContext c, int pc, int target) {
        if (target < c.current.startPc() || target >= c.current.endPc()) {
            throw c.error(pc, "jump target " + target + " is outside its function [" + c.current.startPc() + ", " + c.current.endPc() + ")");
        }
        if (c.secondSlot[target]) throw c.error(pc, "jump into the middle of lddw at pc " + (target - 1));
    }

    private static Cond condition(JitContext c, int pc, int op) {
        switch (op) {
            case Opcodes.JEQ: return Cond.E;
            case Opcodes.JNE: return Cond.NE;
            case Opcodes.JSET: return Cond.NE;
            case Opcodes.JGT: return Cond.A;
            case Opcodes.JGE: return Cond.AE;
            case Opcodes.JLT: return Cond.B;
            case Opcodes.JLE: return Cond.BE;
            case Opcodes.JSGT: return Cond.G;
            case Opcodes.JSGE: return Cond.GE;
            case Opcodes.JSLT: return Cond.L;
            case Opcodes.JSLE: return Cond.LE;
            default: throw c.error(pc, String.format("unknown jump opcode 0x%02x", op));
        }
    }
}
