package dev.bpf4j.jit.compiler;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.runtime.Limits;

import java.util.ArrayList;
import java.util.List;

/**
 * The frame of one JIT function: {@code push rbp; mov rbp, rsp; sub rsp, frameBytes; push saved...}.
 * {@code frameBytes} is the 512-byte BPF stack plus padding that keeps rsp 16-byte aligned in the
 * body, so every call (helpers are jffi closures, which fault on a misaligned stack) is aligned.
 */
record FunctionFrame(int frameBytes, List<X86Reg> saved) {
    /** The entry function saves every callee-saved register: the error exit restores them from its frame. */
    static FunctionFrame entry() {
        return of(List.of(RegMap.ENTRY_SAVED));
    }

    /** A subprogram saves the callee-saved registers it mentions (BPF r6-r9). */
    static FunctionFrame subprogram(Insn[] insns, FunctionSpan f) {
        boolean[] used = new boolean[11];
        for (int pc = f.startPc(); pc < f.endPc(); pc++) {
            if (insns[pc].dst() < used.length) used[insns[pc].dst()] = true;
            if (insns[pc].src() < used.length) used[insns[pc].src()] = true;
            if (insns[pc].isLddw()) pc++;
        }
        List<X86Reg> saved = new ArrayList<>();
        for (int r = 6; r <= 9; r++) if (used[r]) saved.add(RegMap.x86(r));
        return of(saved);
    }

    private static FunctionFrame of(List<X86Reg> saved) {
        // At entry rsp = 8 (mod 16); after push rbp it is 0; keep it 0 after the pushes.
        int pad = (saved.size() % 2 == 1) ? 8 : 0;
        return new FunctionFrame(Limits.STACK_SIZE + pad, List.copyOf(saved));
    }

    /** Distance from rbp down to rsp in the body. */
    int bodyDepth() { return frameBytes + 8 * saved.size(); }
}
