package dev.bpf4j.jvm;

import dev.bpf4j.isa.JmpOps;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;

import static dev.bpf4j.isa.Opcodes.*;
import static org.objectweb.asm.Opcodes.*;

/**
 * The ALU operations and jump conditions whose JVM instruction computes exactly what
 * {@link dev.bpf4j.isa.AluOps} and {@link dev.bpf4j.isa.JmpOps} define, emitted as that instruction
 * instead of a call. Why: C2 inlines at most {@code DesiredMethodLimit} (8,000) bytecode bytes into
 * one compile, counting the region method itself; a region of a few thousand bytes whose every
 * {@code add} and {@code jlt} is a call spends that budget early, and the calls after it (a hot loop
 * behind an unrolled copy, as in the bench's sort) stay real calls. The operations with special cases
 * (division, modulo, byte swaps, sign extension) stay calls to the shared definitions.
 */
final class PlainOps {
    private PlainOps() {}

    static final long MASK32 = 0xffffffffL;

    /** ALU ops done here on two longs {@code a, b} on the stack; shifts are not (their operands are ints). */
    static boolean isPlainBinary(int op) {
        return op == ADD || op == SUB || op == MUL || op == OR || op == AND || op == XOR;
    }

    static boolean isShift(int op) { return op == LSH || op == RSH || op == ARSH; }

    /** {@code a op b} of two longs on the stack; a 32-bit op keeps the low 32 bits (zero-extended), as AluOps' u32. */
    static void binary(MethodVisitor mv, int op, boolean is64) {
        mv.visitInsn(switch (op) {
            case ADD -> LADD; case SUB -> LSUB; case MUL -> LMUL;
            case OR -> LOR; case AND -> LAND; default -> LXOR;
        });
        if (!is64) zeroExtend32(mv);
    }

    /**
     * A shift with the value (long) and the count (long) on the stack: the JVM masks the count as
     * Java's {@code <<} does (63, or 31 on ints), which is AluOps' rule.
     */
    static void shift64(MethodVisitor mv, int op) {
        mv.visitInsn(L2I);
        mv.visitInsn(op == LSH ? LSHL : op == RSH ? LUSHR : LSHR);
    }

    /** A 32-bit shift with the value and the count, both already ints, on the stack. */
    static void shift32(MethodVisitor mv, int op) {
        mv.visitInsn(op == LSH ? ISHL : op == RSH ? IUSHR : ISHR);
        mv.visitInsn(I2L);
        zeroExtend32(mv);
    }

    static void zeroExtend32(MethodVisitor mv) {
        mv.visitLdcInsn(MASK32);
        mv.visitInsn(LAND);
    }

    /** Jumps with an unsigned condition compare their operands with the sign bit flipped. */
    static boolean unsigned(int op) { return op == JGT || op == JGE || op == JLT || op == JLE; }

    /** Flips the sign bit of the long (or, for JMP32, the int) on the stack. */
    static void flipSign(MethodVisitor mv, boolean jmp32) {
        if (jmp32) {
            mv.visitLdcInsn(Integer.MIN_VALUE);
            mv.visitInsn(IXOR);
        } else {
            mv.visitLdcInsn(Long.MIN_VALUE);
            mv.visitInsn(LXOR);
        }
    }

    /**
     * With the two operands on the stack (longs, or ints for JMP32, sign-flipped for the unsigned
     * conditions), jumps to {@code to} when condition {@code op} holds, or when it does not if
     * {@code negated}.
     */
    static void branch(MethodVisitor mv, int op, boolean jmp32, boolean negated, Label to) {
        if (op == JSET) {
            mv.visitInsn(jmp32 ? IAND : LAND);
            if (!jmp32) {
                mv.visitInsn(LCONST_0);
                mv.visitInsn(LCMP);
            }
            mv.visitJumpInsn(negated ? IFEQ : IFNE, to);
            return;
        }
        int cond = negated ? JmpOps.negate(op) : op;
        if (jmp32) {
            mv.visitJumpInsn(switch (cond) {
                case JEQ -> IF_ICMPEQ; case JNE -> IF_ICMPNE;
                case JGT, JSGT -> IF_ICMPGT; case JGE, JSGE -> IF_ICMPGE;
                case JLT, JSLT -> IF_ICMPLT; default -> IF_ICMPLE;
            }, to);
        } else {
            mv.visitInsn(LCMP);
            mv.visitJumpInsn(switch (cond) {
                case JEQ -> IFEQ; case JNE -> IFNE;
                case JGT, JSGT -> IFGT; case JGE, JSGE -> IFGE;
                case JLT, JSLT -> IFLT; default -> IFLE;
            }, to);
        }
    }
}
