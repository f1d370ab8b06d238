package dev.bpf4j.jit.compiler;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;

/** The translate loop: every function (prologue, one emitter call per slot, epilogue), then the stubs. */
final class Translator {
    private Translator() {}

    static void translate(JitContext c, int entryArgs) {
        if (c.entryTrampoline) FrameEmitter.entryTrampoline(c, entryArgs);
        for (FunctionSpan f : c.functions) {
            c.current = f;
            c.funcEntry[f.index()] = c.pos();
            FrameEmitter.prologue(c, f, entryArgs);
            for (int pc = f.startPc(); pc < f.endPc(); pc++) {
                Insn i = c.insns[pc];
                c.start[pc] = c.pos();
                emitInsn(c, pc, i);
                c.end[pc] = c.pos();
                if (i.isLddw()) {
                    if (pc + 1 >= f.endPc()) throw c.error(pc, "lddw's second slot lies outside its function");
                    pc++;
                    c.start[pc] = c.end[pc] = c.pos();
                }
            }
            c.epilogue[f.index()] = c.pos();
            FrameEmitter.epilogue(c, f);
        }
        c.start[c.insns.length] = c.end[c.insns.length] = c.pos();
        StubEmitter.emit(c);
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
