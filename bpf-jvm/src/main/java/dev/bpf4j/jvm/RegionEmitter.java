package dev.bpf4j.jvm;

import dev.bpf4j.helpers.MapHelperInlining;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.runtime.Limits;
import org.objectweb.asm.ConstantDynamic;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Type;

import static dev.bpf4j.isa.Opcodes.*;
import static org.objectweb.asm.Opcodes.*;

/**
 * Emits one region, the slots {@code [start, end)}, as one static method
 * {@code int name(JvmMachine m, long[] r, int pc)}: it loads the registers into locals, jumps to
 * {@code pc} (an entry point of the region), runs, and on leaving stores them back and returns the
 * next pc or a {@link JvmCode} leaving code. One {@code emit*} per instruction shape; an ALU or jump
 * operation is the JVM instruction that computes it exactly ({@link PlainOps}), or else a call to
 * {@link dev.bpf4j.isa.AluOps}, written once for every engine and inlined by HotSpot.
 */
final class RegionEmitter {
    private static final String MACHINE = Type.getInternalName(JvmMachine.class);
    private static final String ALU_OPS = "dev/bpf4j/isa/AluOps";
    private static final String MEMORY = "dev/bpf4j/runtime/NativeMemory", ATOMIC_OPS = "dev/bpf4j/runtime/AtomicOps";
    static final String DESC = "(L" + MACHINE + ";[JI)I";
    private static final Handle CLASS_DATA_AT = new Handle(H_INVOKESTATIC, "java/lang/invoke/MethodHandles", "classDataAt",
            "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/Class;I)Ljava/lang/Object;", false);

    // Local slots: the arguments, the leaving code, r0..r10, the budget, an address and its offset in a window.
    private static final int M = 0, R = 1, PC = 2, NEXT = 3, BUDGET = 26, ADDR = 28, IN_WINDOW = 30;
    private static int reg(int i) { return 4 + 2 * i; }

    private final JvmCompiler.Facts f;
    private final MethodVisitor mv;
    private final int start, end;
    private final Label[] at;
    private final Label leave = new Label();

    private RegionEmitter(JvmCompiler.Facts f, MethodVisitor mv, int start, int end) {
        this.f = f;
        this.mv = mv;
        this.start = start;
        this.end = end;
        this.at = new Label[end - start];
        for (int i = 0; i < at.length; i++) at[i] = new Label();
    }

    /** Emits the region's method body; returns its bytecode size. */
    static int emit(JvmCompiler.Facts f, MethodVisitor mv, int start, int end) {
        return new RegionEmitter(f, mv, start, end).body();
    }

    private int body() {
        mv.visitCode();
        Label first = new Label();
        mv.visitLabel(first);
        for (int i = 0; i <= 10; i++) {
            mv.visitVarInsn(ALOAD, R);
            pushInt(i);
            mv.visitInsn(LALOAD);
            mv.visitVarInsn(LSTORE, reg(i));
        }
        mv.visitVarInsn(ALOAD, M);
        mv.visitFieldInsn(GETFIELD, MACHINE, "budgetLeft", "J");
        mv.visitVarInsn(LSTORE, BUDGET);
        mv.visitInsn(ICONST_0);
        mv.visitVarInsn(ISTORE, NEXT);
        int[] entries = f.entries(start, end);
        Label[] targets = new Label[entries.length];
        for (int i = 0; i < entries.length; i++) targets[i] = at[entries[i] - start];
        Label bad = new Label();
        mv.visitVarInsn(ILOAD, PC);
        mv.visitLookupSwitchInsn(bad, entries, targets);
        for (int pc = start; pc < end; pc++) {
            mv.visitLabel(at[pc - start]);
            if (f.secondSlot[pc]) continue;
            insn(pc, f.insns[pc]);
        }
        if (end == f.insns.length) { // fall-through past the last slot
            mv.visitVarInsn(ALOAD, M);
            mv.visitMethodInsn(INVOKEVIRTUAL, MACHINE, "ranPastEnd", "()Ljava/lang/RuntimeException;", false);
            mv.visitInsn(ATHROW);
        } else {
            leaveTo(end);
        }
        mv.visitLabel(bad); // the driver only enters at the pcs above
        mv.visitTypeInsn(NEW, "java/lang/IllegalStateException");
        mv.visitInsn(DUP);
        mv.visitLdcInsn("not an entry point of this region");
        mv.visitMethodInsn(INVOKESPECIAL, "java/lang/IllegalStateException", "<init>", "(Ljava/lang/String;)V", false);
        mv.visitInsn(ATHROW);
        mv.visitLabel(leave);
        for (int i = 0; i <= 10; i++) {
            mv.visitVarInsn(ALOAD, R);
            pushInt(i);
            mv.visitVarInsn(LLOAD, reg(i));
            mv.visitInsn(LASTORE);
        }
        mv.visitVarInsn(ALOAD, M);
        mv.visitVarInsn(LLOAD, BUDGET);
        mv.visitFieldInsn(PUTFIELD, MACHINE, "budgetLeft", "J");
        mv.visitVarInsn(ILOAD, NEXT);
        mv.visitInsn(IRETURN);
        Label last = new Label();
        mv.visitLabel(last);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
        return last.getOffset() - first.getOffset();
    }

    private void insn(int pc, Insn in) {
        int op = in.opcode();
        switch (cls(op)) {
            case LD -> emitLd(pc, in);
            case LDX -> emitLdx(pc, in);
            case ST, STX -> emitStore(pc, in);
            case ALU, ALU64 -> emitAlu(in);
            default -> emitJmp(pc, in);
        }
    }

    // ---- ALU ----

    private void emitAlu(Insn in) {
        int op = in.opcode();
        boolean is64 = cls(op) == ALU64;
        String w = is64 ? "64" : "32";
        switch (op(op)) {
            case NEG -> {
                mv.visitVarInsn(LLOAD, reg(in.dst()));
                mv.visitInsn(LNEG);
                if (!is64) PlainOps.zeroExtend32(mv);
            }
            case END -> {
                mv.visitVarInsn(LLOAD, reg(in.dst()));
                pushInt(in.imm());
                aluCall(!is64 && source(op) == TO_LE ? "toLe" : "bswap", "(JI)J");
            }
            case MOV -> {
                if (source(op) == K) {
                    mv.visitLdcInsn(is64 ? (long) in.imm() : in.imm() & 0xffffffffL);
                } else if (in.off() == 0) {
                    mv.visitVarInsn(LLOAD, reg(in.src()));
                    if (!is64) PlainOps.zeroExtend32(mv);
                } else {
                    mv.visitVarInsn(LLOAD, reg(in.src()));
                    pushInt(in.off());
                    aluCall("movsx" + w, "(JI)J");
                }
            }
            default -> {
                mv.visitVarInsn(LLOAD, reg(in.dst()));
                if (PlainOps.isShift(op(op)) && !is64) {
                    mv.visitInsn(L2I);
                    operand(in);
                    mv.visitInsn(L2I);
                    PlainOps.shift32(mv, op(op));
                    break;
                }
                operand(in);
                if (PlainOps.isPlainBinary(op(op))) PlainOps.binary(mv, op(op), is64);
                else if (PlainOps.isShift(op(op))) PlainOps.shift64(mv, op(op));
                else aluCall(aluName(op(op), in.off() != 0) + w, "(JJ)J");
            }
        }
        mv.visitVarInsn(LSTORE, reg(in.dst()));
    }

    private static String aluName(int op, boolean signed) {
        return switch (op) {
            case ADD -> "add"; case SUB -> "sub"; case MUL -> "mul"; case DIV -> signed ? "sdiv" : "div";
            case OR -> "or"; case AND -> "and"; case LSH -> "lsh"; case RSH -> "rsh";
            case MOD -> signed ? "smod" : "mod"; case XOR -> "xor"; case ARSH -> "arsh";
            default -> throw new IllegalArgumentException(String.format("ALU op 0x%02x", op));
        };
    }

    private void aluCall(String name, String desc) { mv.visitMethodInsn(INVOKESTATIC, ALU_OPS, name, desc, false); }

    /** The second operand as a long: the sign-extended imm, or src. */
    private void operand(Insn in) {
        if (source(in.opcode()) == K) mv.visitLdcInsn((long) in.imm());
        else mv.visitVarInsn(LLOAD, reg(in.src()));
    }


    // ---- jumps, calls, exit ----

    private void emitJmp(int pc, Insn in) {
        int op = in.opcode();
        switch (op(op)) {
            case JA -> jumpTo(pc, cls(op) == JMP32 ? pc + 1 + in.imm() : pc + 1 + in.off());
            case EXIT -> leaveTo(JvmCode.EXIT);
            case CALL -> {
                if (source(op) == X) emitCallx(pc, in);
                else if (in.src() == PSEUDO_CALL) emitCallLocal(pc);
                else emitHelperCall(pc);
            }
            default -> {
                boolean jmp32 = cls(op) == JMP32;
                jumpOperands(in, jmp32);
                int target = pc + 1 + in.off();
                if (target > pc && inRegion(target)) {
                    PlainOps.branch(mv, op(op), jmp32, false, at[target - start]);
                } else {
                    Label skip = new Label();
                    PlainOps.branch(mv, op(op), jmp32, true, skip);
                    jumpTo(pc, target);
                    mv.visitLabel(skip);
                }
            }
        }
    }

    /** dst and src (or imm) as {@link PlainOps#branch} takes them: ints for JMP32, sign bits flipped for unsigned conditions. */
    private void jumpOperands(Insn in, boolean jmp32) {
        boolean flip = PlainOps.unsigned(op(in.opcode()));
        mv.visitVarInsn(LLOAD, reg(in.dst()));
        if (jmp32) mv.visitInsn(L2I);
        if (flip) PlainOps.flipSign(mv, jmp32);
        operand(in);
        if (jmp32) mv.visitInsn(L2I);
        if (flip) PlainOps.flipSign(mv, jmp32);
    }

    /** A taken jump: a back-edge spends one unit of budget first (BUDGET_EXCEEDED at this pc when none is left). */
    private void jumpTo(int pc, int target) {
        if (target <= pc) spendBudget(pc);
        if (inRegion(target)) mv.visitJumpInsn(GOTO, at[target - start]);
        else leaveTo(target);
    }

    private void spendBudget(int pc) {
        if (!f.countBudget) return; // runs reach this code only with at least the verifier's bound (JvmExecutable.forBudget)
        Label ok = new Label();
        mv.visitVarInsn(LLOAD, BUDGET);
        mv.visitInsn(LCONST_0);
        mv.visitInsn(LCMP);
        mv.visitJumpInsn(IFNE, ok);
        mv.visitVarInsn(ALOAD, M);
        pushInt(pc);
        mv.visitMethodInsn(INVOKEVIRTUAL, MACHINE, "overBudget", "(I)Ldev/bpf4j/runtime/BpfRuntimeException;", false);
        mv.visitInsn(ATHROW);
        mv.visitLabel(ok);
        mv.visitVarInsn(LLOAD, BUDGET);
        mv.visitInsn(LCONST_1);
        mv.visitInsn(LSUB);
        mv.visitVarInsn(LSTORE, BUDGET);
    }

    /** {@code call local}: the budget here (before the depth, which the driver checks), then the driver opens the frame. */
    private void emitCallLocal(int pc) {
        spendBudget(pc);
        leaveTo(JvmCode.CALL_BASE - pc);
    }

    /**
     * {@code call helper}: the helper object is a constant of the class (class data), so HotSpot
     * inlines its body here. r0 and r6-r9 go to the register file first (a callback the helper runs
     * starts from it), the budget to the machine (callbacks spend it too) and back.
     */
    private void emitHelperCall(int pc) {
        Label done = null;
        if (f.inlineMaps[pc] != null) { // the map helper's common case in place (MapHelperInlining), else the helper
            done = new Label();
            Label call = new Label();
            for (int i = 2; i <= 4; i++) storeReg(i);
            mv.visitInsn(f.program.helpers[pc].id() == HelperIds.MAP_UPDATE_ELEM ? ICONST_1 : ICONST_0);
            mv.visitLdcInsn(new ConstantDynamic("_", "Ldev/bpf4j/runtime/LookupInlining$Target;", CLASS_DATA_AT, f.inlineConstant[pc]));
            mv.visitVarInsn(ALOAD, R);
            mv.visitMethodInsn(INVOKESTATIC, Type.getInternalName(MapHelperInlining.class), "inline",
                    "(ZLdev/bpf4j/runtime/LookupInlining$Target;[J)Z", false);
            mv.visitJumpInsn(IFEQ, call);
            mv.visitVarInsn(ALOAD, R);
            mv.visitInsn(ICONST_0);
            mv.visitInsn(LALOAD);
            mv.visitVarInsn(LSTORE, reg(0));
            mv.visitJumpInsn(GOTO, done);
            mv.visitLabel(call);
        }
        beforeHelper();
        mv.visitLdcInsn(new ConstantDynamic("_", "Ldev/bpf4j/runtime/Helper;", CLASS_DATA_AT, f.helperConstant(pc)));
        mv.visitVarInsn(ALOAD, M);
        pushInt(pc);
        pushArgs(pc);
        mv.visitMethodInsn(INVOKESTATIC, MACHINE, "callHelper", "(Ldev/bpf4j/runtime/Helper;L" + MACHINE + ";IJJJJJ)J", false);
        afterHelper();
        if (done != null) mv.visitLabel(done);
    }

    private void emitCallx(int pc, Insn in) {
        beforeHelper();
        mv.visitVarInsn(ALOAD, M);
        pushInt(pc);
        pushInt(in.dst());
        mv.visitVarInsn(LLOAD, reg(in.dst()));
        pushArgs(pc);
        mv.visitMethodInsn(INVOKEVIRTUAL, MACHINE, "callx", "(IIJJJJJJ)J", false);
        afterHelper();
    }

    /** r1-r5 for a helper; an argument no path set is 0, as on every engine (InsnAux.unsetArgs). */
    private void pushArgs(int pc) {
        int unset = f.unsetArgs(pc);
        for (int i = 1; i <= 5; i++) {
            if ((unset & (1 << i)) != 0) mv.visitInsn(LCONST_0);
            else mv.visitVarInsn(LLOAD, reg(i));
        }
    }

    private void beforeHelper() {
        storeReg(0);
        for (int i = 6; i <= 9; i++) storeReg(i);
        mv.visitVarInsn(ALOAD, M);
        mv.visitVarInsn(LLOAD, BUDGET);
        mv.visitFieldInsn(PUTFIELD, MACHINE, "budgetLeft", "J");
    }

    private void afterHelper() {
        mv.visitVarInsn(LSTORE, reg(0));
        mv.visitVarInsn(ALOAD, M);
        mv.visitFieldInsn(GETFIELD, MACHINE, "budgetLeft", "J");
        mv.visitVarInsn(LSTORE, BUDGET);
        Label go = new Label();
        mv.visitVarInsn(ALOAD, M);
        mv.visitFieldInsn(GETFIELD, MACHINE, "stop", "Z");
        mv.visitJumpInsn(IFEQ, go);
        leaveTo(JvmCode.STOP);
        mv.visitLabel(go);
    }

    private void storeReg(int i) {
        mv.visitVarInsn(ALOAD, R);
        pushInt(i);
        mv.visitVarInsn(LLOAD, reg(i));
        mv.visitInsn(LASTORE);
    }

    // ---- lddw, legacy packet loads ----

    private void emitLd(int pc, Insn in) {
        if (in.opcode() == LDDW) {
            mv.visitLdcInsn(in.src() == PSEUDO_FUNC ? f.program.handle(pc + 1 + in.imm()) : in.imm64(f.insns[pc + 1]));
            mv.visitVarInsn(LSTORE, reg(in.dst()));
            return;
        }
        // LD ABS/IND: out of the packet, the frame exits with r0 = 0
        mv.visitVarInsn(ALOAD, M);
        mv.visitLdcInsn((long) in.imm());
        if (mode(in.opcode()) == IND) {
            mv.visitVarInsn(LLOAD, reg(in.src()));
            mv.visitInsn(LADD);
        }
        pushInt(sizeBytes(in.opcode()));
        mv.visitMethodInsn(INVOKEVIRTUAL, MACHINE, "loadPacket", "(JI)J", false);
        mv.visitInsn(DUP2);
        mv.visitVarInsn(LSTORE, reg(0));
        mv.visitInsn(LCONST_1);
        mv.visitInsn(LADD); // -1 (out of range) becomes 0
        Label in_ = new Label();
        mv.visitInsn(LCONST_0);
        mv.visitInsn(LCMP);
        mv.visitJumpInsn(IFNE, in_);
        mv.visitInsn(LCONST_0);
        mv.visitVarInsn(LSTORE, reg(0));
        leaveTo(JvmCode.EXIT);
        mv.visitLabel(in_);
    }

    // ---- loads and stores ----

    /**
     * No run-time check: r10 + a constant inside the frame, an access the verifier proved inside its
     * frame, or (in the guarded copy) one RegionProof proved inside the frame or the data buffer.
     */
    private boolean unchecked(int pc, int base, int off, int size) {
        return (base == 10 && off >= -Limits.STACK_SIZE && off + size <= 0) || f.stackOnly(pc) || f.regionProven(pc);
    }

    /** Pushes {@code base + off}, checked ({@code "read"} or {@code "write"}) unless {@code check} is null. */
    private void address(int pc, int base, int off, int size, String check) {
        mv.visitVarInsn(LLOAD, reg(base));
        if (off != 0) {
            mv.visitLdcInsn((long) off);
            mv.visitInsn(LADD);
        }
        if (check != null) windowCheck(pc, size, check);
        else f.program.unchecked[pc] = true;
    }

    /**
     * {@link JvmMachine#read}'s rule in place: inside the machine's last window, else its slow path.
     * Emitted per access rather than called so that each access has its own branch profile: with one
     * shared {@code read}, the miss every run's first access takes made C2 inline the slow path at
     * every access, and the inlining budget ran out before the hot loop (docs/jvm-engine.md).
     */
    private void windowCheck(int pc, int size, String check) {
        Label slow = new Label(), done = new Label();
        mv.visitVarInsn(LSTORE, ADDR);
        mv.visitVarInsn(LLOAD, ADDR);
        mv.visitVarInsn(ALOAD, M);
        mv.visitFieldInsn(GETFIELD, MACHINE, check + "Lo", "J");
        mv.visitInsn(LSUB);
        mv.visitInsn(DUP2);
        mv.visitVarInsn(LSTORE, IN_WINDOW);
        mv.visitInsn(LCONST_0);
        mv.visitInsn(LCMP);
        mv.visitJumpInsn(IFLT, slow);
        mv.visitVarInsn(LLOAD, IN_WINDOW);
        mv.visitVarInsn(ALOAD, M);
        mv.visitFieldInsn(GETFIELD, MACHINE, check + "Len", "J");
        mv.visitLdcInsn((long) size);
        mv.visitInsn(LSUB);
        mv.visitInsn(LCMP);
        mv.visitJumpInsn(IFGT, slow);
        mv.visitVarInsn(LLOAD, ADDR);
        mv.visitJumpInsn(GOTO, done);
        mv.visitLabel(slow);
        mv.visitVarInsn(ALOAD, M);
        mv.visitVarInsn(LLOAD, ADDR);
        pushInt(size);
        pushInt(pc);
        mv.visitMethodInsn(INVOKEVIRTUAL, MACHINE, check + "Slow", "(JII)J", false);
        mv.visitLabel(done);
    }

    private void emitLdx(int pc, Insn in) {
        int op = in.opcode(), size = sizeBytes(op);
        boolean sx = mode(op) == MEMSX;
        address(pc, in.src(), in.off(), size, !sx && unchecked(pc, in.src(), in.off(), size) ? null : "read");
        memCall(false, size);
        if (size < 8) {
            mv.visitInsn(I2L);
            if (!sx) {
                mv.visitLdcInsn(size == 1 ? 0xffL : size == 2 ? 0xffffL : 0xffffffffL);
                mv.visitInsn(LAND);
            }
        }
        mv.visitVarInsn(LSTORE, reg(in.dst()));
    }

    private void emitStore(int pc, Insn in) {
        int op = in.opcode(), size = sizeBytes(op);
        if (mode(op) == ATOMIC) {
            emitAtomic(pc, in, size);
            return;
        }
        address(pc, in.dst(), in.off(), size, unchecked(pc, in.dst(), in.off(), size) ? null : "write");
        if (cls(op) == ST) {
            if (size == 8) mv.visitLdcInsn((long) in.imm());
            else pushInt(size == 1 ? (byte) in.imm() : size == 2 ? (short) in.imm() : in.imm());
        } else {
            mv.visitVarInsn(LLOAD, reg(in.src()));
            if (size < 8) mv.visitInsn(L2I);
            if (size == 1) mv.visitInsn(I2B);
            if (size == 2) mv.visitInsn(I2S);
        }
        memCall(true, size);
    }

    /** BPF_ATOMIC: every form is a locked read-modify-write ({@link dev.bpf4j.runtime.AtomicOps}), as the JIT's {@code lock} instructions. */
    private void emitAtomic(int pc, Insn in, int size) {
        mv.visitVarInsn(ALOAD, M);
        mv.visitVarInsn(LLOAD, reg(in.dst()));
        mv.visitLdcInsn((long) in.off());
        mv.visitInsn(LADD);
        pushInt(size);
        pushInt(pc);
        mv.visitMethodInsn(INVOKEVIRTUAL, MACHINE, "atomicAddress", "(JII)J", false);
        String w = size == 8 ? "64" : "32";
        if (in.imm() == CMPXCHG) {
            mv.visitVarInsn(LLOAD, reg(0));
            mv.visitVarInsn(LLOAD, reg(in.src()));
            mv.visitMethodInsn(INVOKESTATIC, ATOMIC_OPS, "cmpxchg" + w, "(JJJ)J", false);
            mv.visitVarInsn(LSTORE, reg(0));
            return;
        }
        pushInt(in.imm());
        mv.visitVarInsn(LLOAD, reg(in.src()));
        mv.visitMethodInsn(INVOKESTATIC, ATOMIC_OPS, "rmw" + w, "(JIJ)J", false);
        if ((in.imm() & FETCH) != 0) mv.visitVarInsn(LSTORE, reg(in.src()));
        else mv.visitInsn(POP2);
    }

    /** {@code NativeMemory.get<T>(address)} or {@code put<T>(address, value)} for a {@code size}-byte access. */
    private void memCall(boolean put, int size) {
        String type = switch (size) { case 1 -> "Byte"; case 2 -> "Short"; case 4 -> "Int"; default -> "Long"; };
        String value = switch (size) { case 1 -> "B"; case 2 -> "S"; case 4 -> "I"; default -> "J"; };
        mv.visitMethodInsn(INVOKESTATIC, MEMORY, (put ? "put" : "get") + type, put ? "(J" + value + ")V" : "(J)" + value, false);
    }

    // ---- plumbing ----

    private boolean inRegion(int pc) { return pc >= start && pc < end; }

    /** Leaves the region: {@code next} is a pc or a leaving code. */
    private void leaveTo(int next) {
        pushInt(next);
        mv.visitVarInsn(ISTORE, NEXT);
        mv.visitJumpInsn(GOTO, leave);
    }

    private void pushInt(int v) {
        if (v >= -1 && v <= 5) mv.visitInsn(ICONST_0 + v);
        else if (v >= Byte.MIN_VALUE && v <= Byte.MAX_VALUE) mv.visitIntInsn(BIPUSH, v);
        else if (v >= Short.MIN_VALUE && v <= Short.MAX_VALUE) mv.visitIntInsn(SIPUSH, v);
        else mv.visitLdcInsn(v);
    }
}
