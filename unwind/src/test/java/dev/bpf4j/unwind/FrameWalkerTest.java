package dev.bpf4j.unwind;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The walker over a synthetic stack: three frames of a function with standard rows, then plain frames. */
class FrameWalkerTest {
    private static final long STACK = 0x7fff0000L;
    private static final long F = 0x400000L; // function: push rbp (1) mov rbp,rsp (3) body ... leave ret

    private static CodeMap mapWithF() {
        CodeMap map = new CodeMap();
        map.register(new CodeRegion(F, 0x40, "f", "test", List.of(
                new UnwindRow(0, 1, CfaRule.RETURN_AT_SP), new UnwindRow(1, 4, CfaRule.RETURN_AT_SP_PLUS_8),
                new UnwindRow(4, 0x3f, CfaRule.FRAME_POINTER), new UnwindRow(0x3f, 0x40, CfaRule.RETURN_AT_SP))));
        return map;
    }

    /** Stack words from STACK upwards. */
    private static SnapshotMemoryView stack(long... words) {
        ByteBuffer b = ByteBuffer.allocate(words.length * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (long w : words) b.putLong(w);
        return new SnapshotMemoryView(STACK, b.array());
    }

    @Test
    void framePointerChainInnermostFirst() {
        // frame0 at STACK: [saved bp -> STACK+16][ra 0x500010]; frame1 at STACK+16: [STACK+32][0x500020]; frame2: [0][0x500030]
        SnapshotMemoryView s = stack(STACK + 16, 0x500010, STACK + 32, 0x500020, 0, 0x500030);
        List<Long> ips = new FrameWalker(new CodeMap()).walk(0x500000, STACK - 64, STACK, s);
        assertThat(ips).containsExactly(0x500000L, 0x500010L, 0x500020L, 0x500030L);
    }

    @Test
    void rowsRecoverTheCallerAtEntryAfterPushAndAtRet() {
        // Caller frame at STACK+16 (bp chain: [STACK+16] = 0, ra 0x600000). f was called from 0x500010.
        SnapshotMemoryView s = stack(0xdead, 0x500010, 0, 0x600000);
        long callerBp = STACK + 16;
        FrameWalker w = new FrameWalker(mapWithF());
        // At f's first byte: sp = STACK + 8 points at the return address.
        assertThat(w.walk(F, STACK + 8, callerBp, s)).startsWith(F, 0x500010L);
        // After push rbp: [sp] = caller bp, [sp + 8] = ra.
        SnapshotMemoryView pushed = stack(callerBp, 0x500010, 0, 0x600000);
        assertThat(w.walk(F + 1, STACK, callerBp, pushed)).startsWith(F + 1, 0x500010L);
        // At ret: like entry.
        assertThat(w.walk(F + 0x3f, STACK + 8, callerBp, s)).startsWith(F + 0x3f, 0x500010L);
        // The naive walk loses 0x500010 at entry.
        assertThat(new FrameWalker(new CodeMap()).walk(F, STACK + 8, callerBp, s)).doesNotContain(0x500010L);
    }

    @Test
    void stopsOnBadFramePointersAndOutOfViewReads() {
        FrameWalker w = new FrameWalker(new CodeMap());
        // Non-increasing frame pointer: saved bp points below the current one.
        SnapshotMemoryView loop = stack(STACK, 0x500010);
        assertThat(w.walk(0x500000, STACK, STACK, loop)).containsExactly(0x500000L, 0x500010L);
        // bp outside the view.
        assertThat(w.walk(0x500000, STACK, 0x1234, loop)).containsExactly(0x500000L);
        // null bp.
        assertThat(w.walk(0x500000, STACK, 0, loop)).containsExactly(0x500000L);
    }

    @Test
    void depthIsCappedAt127() {
        long[] words = new long[2 * 300];
        for (int i = 0; i < 300; i++) {
            words[2 * i] = STACK + 16L * (i + 1);
            words[2 * i + 1] = 0x500000 + i;
        }
        List<Long> ips = new FrameWalker(new CodeMap()).walk(0x400000, STACK, STACK, stack(words));
        assertThat(ips).hasSize(FrameWalker.MAX_DEPTH);
    }
}
