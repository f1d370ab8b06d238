package dev.bpf4j.jit.compiler;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.jit.analysis.LoadCombining;

/**
 * The translate loop: every function (prologue, one emitter call per slot, epilogue), then the
 * stubs. Main may have a second, guarded body ({@link GuardedCopy}, entered by {@link EntryGuard}).
 */
final class Translator {
    private Translator() {}

    static void translate(JitContext c, int entryArgs) {
        if (c.entryTrampoline) FrameEmitter.entryTrampoline(c, entryArgs);
        for (FunctionSpan f : c.functions) {
            c.current = f;
            c.funcEntry[f.index()] = c.pos();
            FrameEmitter.prologue(c, f, entryArgs);
            body(c, f);
            if (f.isMain() && c.guarded != null) {
                // The guarded copy of main's body sits between the checked body and the epilogue:
                // the same frame, the same exits, covered by main's frame-pointer unwind row.
                c.swapVariant();
                body(c, f);
                c.swapVariant();
            }
            c.epilogue[f.index()] = c.pos();
            FrameEmitter.epilogue(c, f);
        }
        c.start[c.insns.length] = c.end[c.insns.length] = c.pos();
        StubEmitter.emit(c);
    }

    private static void body(JitContext c, FunctionSpan f) {
        for (int pc = f.startPc(); pc < f.endPc(); pc++) {
            Insn i = c.insns[pc];
            if (c.loopHeads[pc]) c.e.alignTo(LoopHeads.ALIGNMENT); /* nop...: the loop starts on a boundary */
            c.start[pc] = c.pos();
            LoadCombining.CombinedLoad wide = c.combining.at()[pc];
            if (wide != null) MemoryEmitter.combinedLoad(c.e, wide);
            else if (!c.combining.dropped()[pc]) emitInsn(c, pc, i);
            c.end[pc] = c.pos();
            if (i.isLddw()) {
                if (pc + 1 >= f.endPc()) throw c.error(pc, "lddw's second slot lies outside its function");
                pc++;
                c.start[pc] = c.end[pc] = c.pos();
            }
        }
    }

    private static void emitInsn(JitContext c, int pc, Insn i) {
        switch (i.cls()) {
            case Opcodes.ALU:
            case Opcodes.ALU64:
                AluEmitter.emit(c, pc, i);
                break;
            case Opcodes.JMP:
            case Opcodes.JMP32:
                JumpEmitter.emit(c, pc, i);
                break;
            default:
                MemoryEmitter.emit(c, pc, i);
        }
    }
}
