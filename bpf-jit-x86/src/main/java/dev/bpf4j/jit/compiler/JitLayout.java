package dev.bpf4j.jit.compiler;

import dev.bpf4j.unwind.UnwindRow;

import java.util.List;

/**
 * The layout of a compiled program, for symbolizers, perf maps and disassemblers: its functions,
 * the native offset of every slot ({@code pcOffsets[pc]}; {@code pcOffsets[length]} is the end of
 * the last function) and the shared stub block with its unwind rows (relative to stubOffset).
 */
public record JitLayout(List<FunctionLayout> functions, int[] pcOffsets, int stubOffset, int stubSize,
                        List<UnwindRow> stubRows, int imageSize) {
    public JitLayout {
        functions = List.copyOf(functions);
        pcOffsets = pcOffsets.clone();
        stubRows = List.copyOf(stubRows);
    }

    /** Native offset (from the image start) of the code for slot {@code pc}. */
    public int nativeOffset(int pc) { return pcOffsets[pc]; }

    @Override public int[] pcOffsets() { return pcOffsets.clone(); }
}
