package dev.bpf4j.jit.compiler;

import dev.bpf4j.unwind.CfaRule;
import dev.bpf4j.unwind.UnwindRow;

import java.util.List;

/**
 * Where one BPF function landed in the image: its slots {@code [startPc, endPc)}, its code
 * {@code [codeOffset, codeOffset + codeSize)}, the offset right after {@code mov rbp, rsp}
 * ({@code fpStart}) and of its {@code leave}. All offsets are relative to the image start.
 */
public record FunctionLayout(int index, int startPc, int endPc, int codeOffset, int codeSize, int fpStart, int leaveOffset) {
    public boolean isMain() { return index == 0; }

    /** Unwind rows relative to {@link #codeOffset}: ra at [rsp], then [rsp + 8], then rbp frame, then [rsp] at ret. */
    public List<UnwindRow> unwindRows() {
        int push = 1, fp = fpStart - codeOffset, leave = leaveOffset - codeOffset;
        return List.of(
                new UnwindRow(0, push, CfaRule.RETURN_AT_SP),
                new UnwindRow(push, fp, CfaRule.RETURN_AT_SP_PLUS_8),
                new UnwindRow(fp, leave + 1, CfaRule.FRAME_POINTER),
                new UnwindRow(leave + 1, codeSize, CfaRule.RETURN_AT_SP));
    }
}
