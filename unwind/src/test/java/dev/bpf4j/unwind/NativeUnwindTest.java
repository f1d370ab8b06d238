package dev.bpf4j.unwind;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Unwinds real native frames: a gcc-built chain a → b → c calls a hand-assembled routine that
 * records its registers; the walk from them over the live stack (inside an upcall, while the
 * frames exist) and over a copy of it finds the routine, c, b, a, then the jffi code that called a.
 */
class NativeUnwindTest {
    @Test
    void liveAndSnapshotWalksFindTheCallChainByName() {
        try (CaptureRoutine capture = new CaptureRoutine()) {
            CodeMap jit = new CodeMap();
            jit.register(capture.region());
            ProcessCode code = new ProcessCode(jit, ProcMaps::read, 0);
            Unwinder unwinder = new Unwinder(code);
            CallChain.Capture<StackTrace> c = CallChain.run(capture, r -> unwinder.unwindCurrentThread(r[0], r[1], r[2]));
            StackTrace live = c.upcallResult();
            List<Frame> frames = new Symbolizer(code, new SyntheticFrames()).symbolize(live);
            String printed = frames.toString();

            assertThat(c.ip()).isEqualTo(capture.address + CaptureRoutine.CAPTURED_IP);
            assertThat(live.ips().get(0)).isEqualTo(c.ip());
            assertThat(frames.size()).as(printed).isGreaterThanOrEqualTo(5);
            assertThat(frames.get(0).toString()).isEqualTo("test!capture_regs+0x7");
            String lib = CallChain.library().getFileName().toString();
            for (int i = 1; i <= 3; i++) {
                assertThat(frames.get(i).module()).as(printed).isEqualTo(lib);
                assertThat(frames.get(i).symbol()).as(printed).isEqualTo(List.of("c", "b", "a").get(i - 1));
                assertThat(frames.get(i).toString()).matches(lib.replace(".", "\\.") + "![abc]\\+0x[0-9a-f]+");
            }
            // The return address into c lies inside c, right after its call.
            long cStart = CallChain.symbol("c");
            assertThat(live.ips().get(1) - cStart).isEqualTo(frames.get(1).offset()).isBetween(1L, 64L);
            // a's caller is the JVM's native-call stub (jffi's libffi): a named native module, not the test library.
            Frame caller = frames.get(4);
            assertThat(caller.module()).as(printed).isNotNull().isNotEqualTo(lib);
            assertThat(code.nativeMapping(caller.ip()).orElseThrow().mapping().fileBacked()).as(printed).isTrue();
            // c, b and a had no unwind rows: their frames came from frame pointers.
            assertThat(live.reliable()).isFalse();

            StackTrace fromCopy = unwinder.unwind(c.ip(), c.sp(), c.bp(), c.snapshot());
            assertThat(fromCopy.ips()).as(printed).isEqualTo(live.ips());
        }
    }

    @Test
    void aNaiveStartAtTheRoutineLosesNothingBecauseOfItsRows() {
        try (CaptureRoutine capture = new CaptureRoutine()) {
            CodeMap jit = new CodeMap();
            jit.register(capture.region());
            Unwinder withRows = new Unwinder(new ProcessCode(jit, ProcMaps::read, 0));
            Unwinder withoutRows = new Unwinder(new ProcessCode(new CodeMap(), ProcMaps::read, 0));
            CallChain.Capture<Void> c = CallChain.run(capture, r -> null);
            List<Long> exact = withRows.unwind(c.ip(), c.sp(), c.bp(), c.snapshot()).ips();
            List<Long> naive = withoutRows.unwind(c.ip(), c.sp(), c.bp(), c.snapshot()).ips();
            // rbp still belongs to c at the routine's first instructions: the frame-pointer walk skips c.
            assertThat(exact.get(1) - CallChain.symbol("c")).isBetween(1L, 64L);
            assertThat(naive).doesNotContain(exact.get(1));
            assertThat(naive.subList(1, naive.size())).isEqualTo(exact.subList(2, exact.size()));
        }
    }
}
