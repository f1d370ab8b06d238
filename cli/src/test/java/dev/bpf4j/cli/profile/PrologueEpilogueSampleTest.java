package dev.bpf4j.cli.profile;

import dev.bpf4j.api.Engines;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.unwind.CfaRule;
import dev.bpf4j.unwind.CodeMap;
import dev.bpf4j.unwind.CodeRegion;
import dev.bpf4j.unwind.FrameWalker;
import dev.bpf4j.unwind.SnapshotMemoryView;
import dev.bpf4j.unwind.StackTrace;
import dev.bpf4j.unwind.Unwinder;
import dev.bpf4j.unwind.UnwindRow;
import dev.bpf4j.unwind.sampling.PerfRecord;
import dev.bpf4j.unwind.sampling.SampleUnwinder;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Samples synthesized at every byte of the JIT's four functions of the subprogram chain — on the
 * first instruction, after {@code push rbp}, inside the frame and on {@code ret} — with the stack a
 * thread in the chain would have there: each unwinds through the JIT's rows to exactly the callers
 * (function k, then k-1 ... main), while a walk by frame pointers alone loses the caller at the
 * entry and on {@code ret}.
 */
class PrologueEpilogueSampleTest {
    private static final long BASE = 0x7f00_0000_0000L;

    @Test
    void everyByteOfEveryFunctionUnwindsToTheExactChain() {
        try (Executable exe = Engines.byName("jit").load(SubprogramChain.program(), LoadOptions.defaults())) {
            List<CodeRegion> fns = ProfileSession.chainFunctions(exe);
            CodeMap map = new CodeMap();
            fns.forEach(map::register);
            SampleUnwinder unwinder = new SampleUnwinder(new Unwinder(map, ip -> map.find(ip).isPresent()));
            FrameWalker framePointersOnly = new FrameWalker(new CodeMap());
            ChainAccuracy check = new ChainAccuracy(fns);

            // Frames of main (0) .. sub3 (3): rbp[k] = BASE + 0x400 - 0x100 k; [rbp[k]] = rbp[k-1]; [rbp[k] + 8] = a return
            // address 5 bytes into function k-1 (the call before it); main's saved rbp and return address are 0.
            ByteBuffer stack = ByteBuffer.allocate(0x500).order(ByteOrder.LITTLE_ENDIAN);
            long[] rbp = new long[4], ra = new long[4];
            for (int k = 0; k < 4; k++) {
                rbp[k] = BASE + 0x400 - 0x100L * k;
                ra[k] = k == 0 ? 0 : fns.get(k - 1).start() + 5;
                stack.putLong((int) (rbp[k] - BASE), k == 0 ? 0 : rbp[k - 1]);
                stack.putLong((int) (rbp[k] - BASE + 8), ra[k]);
            }
            int checked = 0, naiveLost = 0;
            for (int k = 0; k < 4; k++) {
                CodeRegion fn = fns.get(k);
                List<Long> expectedCallers = new ArrayList<>();
                for (int i = k; i >= 1; i--) expectedCallers.add(ra[i]);
                long callerBp = k == 0 ? 0 : rbp[k - 1];
                for (long ip = fn.start(); ip < fn.end(); ip++) {
                    CfaRule rule = fn.ruleAt(ip);
                    long sp, bp;
                    switch (rule) {
                        case RETURN_AT_SP -> { sp = rbp[k] + 8; bp = callerBp; }           // entry, or ret after leave
                        case RETURN_AT_SP_PLUS_8 -> { sp = rbp[k]; bp = callerBp; }        // after push rbp
                        default -> { sp = rbp[k] - 0x40; bp = rbp[k]; }                     // inside the frame
                    }
                    byte[] copy = Arrays.copyOfRange(stack.array(), (int) (sp - BASE), stack.capacity());
                    PerfRecord.Sample s = PerfRecord.Sample.ofFrame(1, 1, 0, ip, bp, sp, ip, copy, new long[0]);
                    StackTrace t = unwinder.unwind(s);
                    assertThat(t.ips().subList(1, t.ips().size())).as("%s+%d (%s)", fn.symbol(), ip - fn.start(), rule).isEqualTo(expectedCallers);
                    assertThat(check.isExact(t.ips(), k)).isTrue();
                    if (k > 0 && !check.isExact(framePointersOnly.walk(ip, sp, bp, new SnapshotMemoryView(sp, copy)), k)) naiveLost++;
                    checked++;
                }
            }
            // Every function has its entry and ret rows; frame pointers alone get at least those wrong in sub1..sub3.
            for (CodeRegion fn : fns) assertThat(fn.rows()).extracting(UnwindRow::rule).contains(CfaRule.RETURN_AT_SP, CfaRule.RETURN_AT_SP_PLUS_8, CfaRule.FRAME_POINTER);
            assertThat(naiveLost).isGreaterThanOrEqualTo(3 * 3);
            assertThat(checked).isEqualTo(fns.stream().mapToLong(CodeRegion::size).sum());
        }
    }
}
