package dev.bpf4j.jit;

import dev.bpf4j.jit.runtime.ExecutableMemory;
import dev.bpf4j.jit.runtime.JitExecutable;
import dev.bpf4j.jit.runtime.JitLoader;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.unwind.CfaRule;
import dev.bpf4j.unwind.CodeMap;
import dev.bpf4j.unwind.CodeRegion;
import dev.bpf4j.unwind.FrameWalker;
import dev.bpf4j.unwind.SnapshotMemoryView;
import dev.bpf4j.unwind.UnwindRow;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.jit.I.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JIT's frames are real: a native helper called from the innermost of three nested
 * subprograms captures rbp/rsp and a copy of the stack up to the entry frame; walking that
 * snapshot finds sub3, sub2, sub1 and main in order, each named through the code map. Register
 * sets as a sampler would see them at a function's first instruction, after its {@code push rbp}
 * and at its {@code ret} unwind exactly through the rows (a plain frame-pointer walk loses the caller),
 * and so do those at every other instruction of the four functions.
 */
class FrameUnwindTest {
    private static final int CAPTURE = 50;
    private static final int OUT = 16 + 16 * 1024;

    /** What the helper saw, the program's code regions and the walk made while they were registered. */
    private record Capture(long rbp, long rsp, SnapshotMemoryView stack, List<CodeRegion> fns, List<byte[]> code, List<Long> walk) {}

    private static Capture capture(CodeMap map) {
        long out = NativeMemory.allocate(OUT);
        try (ExecutableMemory code = NativeCode.captureStack()) {
            CodeRegion helper = new CodeRegion(code.address(), code.size(), "capture_stack", "test",
                    List.of(new UnwindRow(0, code.size(), CfaRule.RETURN_AT_SP)));
            map.register(helper);
            JitLoader engine = new JitLoader().withNativeHelper(HelperBinding.nativeCode(CAPTURE, "capture", code.address(), code));
            Program p = prog("nested",
                    lddw(6, out), mov64r(9, 10), callLocal(1), exit(), // 0..4: main; r9 = its frame pointer
                    mov64(7, 1), callLocal(1), exit(),                 // 5..7: sub1
                    mov64(8, 2), callLocal(1), exit(),                 // 8..10: sub2
                    mov64r(1, 6), mov64r(2, 9), alu64(ADD, 2, 16),     // 11..13: sub3: copy up to main's ra
                    call(CAPTURE), exit());                            // 14..15
            RunContext ctx = RunContext.builder().region(new MemoryRegion("out", out, OUT, true)).build();
            try (JitExecutable x = engine.load(p, LoadOptions.defaults())) {
                long copied = x.run(ctx);
                assertThat(copied).isBetween(16L, (long) OUT - 16);
                long rbp = NativeMemory.getLong(out), rsp = NativeMemory.getLong(out + 8);
                SnapshotMemoryView stack = new SnapshotMemoryView(rsp, NativeMemory.read(out + 16, (int) copied));
                List<CodeRegion> fns = List.copyOf(x.codeRegions());
                List<byte[]> bytes = fns.stream().map(r -> NativeMemory.read(r.start(), (int) r.size())).toList();
                if (map != CodeMap.global()) fns.forEach(map::register);
                // Walk while the program is still registered in the global map.
                List<Long> walk = new FrameWalker(map).walk(code.address(), rsp, rbp, stack);
                return new Capture(rbp, rsp, stack, fns, bytes, walk);
            } finally {
                map.unregister(helper);
            }
        } finally {
            NativeMemory.free(out);
        }
    }

    @Test
    void walkFromANativeHelperFindsTheNestedFunctionsInOrder() {
        Capture c = capture(CodeMap.global());
        List<Long> ips = c.walk();
        CodeRegion main = c.fns().get(0), sub1 = c.fns().get(1), sub2 = c.fns().get(2), sub3 = c.fns().get(3);
        assertThat(main.symbol()).matches("bpf_prog_[0-9a-f]{16}_nested");
        for (CodeRegion sub : List.of(sub1, sub2, sub3)) assertThat(sub.symbol()).matches("bpf_prog_[0-9a-f]{16}_F");
        assertThat(ips.size()).isGreaterThanOrEqualTo(5);
        assertThat(sub3.contains(ips.get(1) - 1)).as("1: sub3").isTrue();
        assertThat(sub2.contains(ips.get(2) - 1)).as("2: sub2").isTrue();
        assertThat(sub1.contains(ips.get(3) - 1)).as("3: sub1").isTrue();
        assertThat(main.contains(ips.get(4) - 1)).as("4: main").isTrue();
        // The captured stack pointer lies in this thread's stack mapping, which bounds a live view.
        var view = dev.bpf4j.unwind.ProcMaps.stackViewFrom(c.rsp()).orElseThrow();
        assertThat(view.contains(c.rsp())).isTrue();
        assertThat(dev.bpf4j.unwind.ProcMaps.containing(c.rsp()).orElseThrow().writable()).isTrue();
    }

    @Test
    void samplesAtPrologueAndRetUnwindThroughTheRows() {
        // Regions stay registered in a private map so the walk can run after the program closed.
        CodeMap map = new CodeMap();
        Capture c = capture(map);
        CodeRegion sub1 = c.fns().get(1), sub2 = c.fns().get(2), sub3 = c.fns().get(3);
        long rbp3 = c.rbp();
        long rbp2 = c.stack().readLong(rbp3);
        FrameWalker walker = new FrameWalker(map);
        // At sub3's first instruction (before push rbp): sp points at the return address into sub2.
        List<Long> atEntry = walker.walk(sub3.start(), rbp3 + 8, rbp2, c.stack());
        assertThat(sub2.contains(atEntry.get(1) - 1)).as("caller found at entry").isTrue();
        assertThat(sub1.contains(atEntry.get(2) - 1)).isTrue();
        // After push rbp, before mov rbp, rsp.
        List<Long> afterPush = walker.walk(sub3.start() + 1, rbp3, rbp2, c.stack());
        assertThat(sub2.contains(afterPush.get(1) - 1)).as("caller found after push rbp").isTrue();
        // On ret, after leave.
        List<Long> atRet = walker.walk(sub3.end() - 1, rbp3 + 8, rbp2, c.stack());
        assertThat(sub2.contains(atRet.get(1) - 1)).as("caller found at ret").isTrue();
        // A plain frame-pointer walk (no rows) from the entry sample skips sub2: the rows matter.
        List<Long> naive = new FrameWalker(new CodeMap()).walk(sub3.start(), rbp3 + 8, rbp2, c.stack());
        assertThat(sub2.contains(naive.get(1) - 1)).isFalse();
        assertThat(sub1.contains(naive.get(1) - 1)).isTrue();
        c.fns().forEach(map::unregister);
    }

    /**
     * For every instruction of each of the four JIT functions, the register set a sampler would see
     * there unwinds through the rows to exactly the callers the helper's walk found. Boundaries come
     * from GNU objdump; rsp and rbp are replayed from the instructions that move them: entry (return
     * address at rsp, caller's rbp), after {@code push rbp}, inside the frame, after {@code leave}
     * (at {@code ret}), and out-of-line code after the {@code ret}, which is reached from inside the frame.
     */
    @Test
    void everyInstructionOfEveryFunctionUnwindsToItsCallers() {
        CodeMap map = new CodeMap();
        Capture c = capture(map);
        long[] rbp = new long[5];                        // rbp[f]: function f's frame (0 = main); rbp[4]: main's caller's
        rbp[3] = c.rbp();
        for (int f = 3; f >= 0; f--) rbp[f == 0 ? 4 : f - 1] = c.stack().readLong(rbp[f]);
        long callerOfMain = rbp[4];
        FrameWalker walker = new FrameWalker(map);
        int checked = 0;
        for (int f = 0; f < 4; f++) {
            CodeRegion fn = c.fns().get(f);
            long own = rbp[f], caller = f == 0 ? callerOfMain : rbp[f - 1];
            List<Long> expected = c.walk().subList(5 - f, c.walk().size());
            long rsp = own + 8, bp = caller;             // at the first instruction
            for (X86Listing.Insn i : X86Listing.disassemble(c.code().get(f))) {
                List<Long> ips = walker.walk(fn.start() + i.offset(), rsp, bp, c.stack());
                assertThat(ips.subList(1, ips.size())).as("%s+%d %s", fn.symbol(), i.offset(), i.text()).isEqualTo(expected);
                checked++;
                String x = i.text();
                if (x.equals("push   %rbp")) rsp -= 8;
                else if (x.equals("mov    %rsp,%rbp")) bp = rsp;
                else if (x.startsWith("leave")) { rsp = own + 8; bp = caller; }
                else if (x.startsWith("ret")) { rsp = own - 64; bp = own; } // what follows is entered from the frame
                else if (x.startsWith("push")) rsp -= 8;
                else if (x.startsWith("pop")) rsp += 8;
                else if (x.startsWith("sub ") && x.endsWith(",%rsp")) rsp -= Long.decode(x.substring(x.indexOf('$') + 1, x.indexOf(',')));
                else if (x.startsWith("add ") && x.endsWith(",%rsp")) rsp += Long.decode(x.substring(x.indexOf('$') + 1, x.indexOf(',')));
                else assertThat(x).as("an instruction the replay does not model moves rsp or rbp").doesNotContain(",%rsp").doesNotContain(",%rbp");
            }
        }
        assertThat(checked).isGreaterThan(40);
        c.fns().forEach(map::unregister);
    }
}
