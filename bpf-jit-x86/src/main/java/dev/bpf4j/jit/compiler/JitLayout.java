package dev.bpf4j.jit.compiler;

import dev.bpf4j.unwind.UnwindRow;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The layout of a compiled program, for symbolizers, perf maps and disassemblers: its functions,
 * the native offset of every slot ({@code pcOffsets[pc]}; {@code pcOffsets[length]} is the end of
 * the last function), the shared stub block with its unwind rows (relative to stubOffset) and, when
 * the main program is itself a call target, the entry trampoline at offset 0 (index -1, no slots).
 * When main has a guarded copy of its body ({@link ProofSites#guardedOffset}),
 * {@code guardedPcOffsets[pc]} is where the copy's code for main's slot {@code pc} starts, and its
 * last entry (index main's endPc) where the copy ends; empty when there is no copy.
 */
public record JitLayout(List<FunctionLayout> functions, int[] pcOffsets, int stubOffset, int stubSize,
                        List<UnwindRow> stubRows, int imageSize, Optional<FunctionLayout> entryTrampoline,
                        int[] guardedPcOffsets) {
    public JitLayout {
        functions = List.copyOf(functions);
        Objects.requireNonNull(entryTrampoline);
        pcOffsets = pcOffsets.clone();
        stubRows = List.copyOf(stubRows);
        guardedPcOffsets = guardedPcOffsets.clone();
    }

    /** Native offset (from the image start) of the code for slot {@code pc}. */
    public int nativeOffset(int pc) { return pcOffsets[pc]; }

    @Override public int[] pcOffsets() { return pcOffsets.clone(); }

    @Override public int[] guardedPcOffsets() { return guardedPcOffsets.clone(); }

    /** True when main has a guarded copy whose slots {@link #guardedPcOffsets} places. */
    public boolean hasGuardedCopy() { return guardedPcOffsets.length > 0; }
}
