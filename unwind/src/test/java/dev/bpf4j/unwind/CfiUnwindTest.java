package dev.bpf4j.unwind;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Unwinding real gcc -O2 code by its {@code .eh_frame}: a → b → c → capture routine built without
 * frame pointers (b keeps data in rbp), the same built with them, qsort calling back into the
 * library's comparator (libc's own frames between), and a chain on a pthread that ends at libc's
 * outermost frame. The walk runs live inside the routine's upcall and again over the copy of the
 * stack the routine took; return addresses are checked against objdump's, by symbol and offset.
 */
class CfiUnwindTest {
    private record Walk(StackTrace trace, List<Frame> frames, CallChain.Capture<StackTrace> capture, Unwinder cfi, Unwinder fpOnly) {
        String printed() { return frames.toString(); }
    }

    private static Walk walk(CfiChainLibrary lib, String entry, CaptureRoutine capture) {
        CodeMap jit = new CodeMap();
        jit.register(capture.region());
        ProcessCode code = new ProcessCode(jit, ProcMaps::read, 0);
        Unwinder cfi = new Unwinder(code);
        Unwinder fpOnly = new Unwinder(jit, code::isCode, CfiLookup.NONE);
        CallChain.Capture<StackTrace> c = CallChain.run(lib.symbol(entry), capture, r -> cfi.unwindCurrentThread(r[0], r[1], r[2]));
        StackTrace live = c.upcallResult();
        List<Frame> frames = new Symbolizer(code, new SyntheticFrames()).symbolize(live);
        // Over the copy of the stack the routine took: the same walk.
        assertThat(cfi.unwind(c.ip(), c.sp(), c.bp(), c.snapshot()).ips()).as(frames.toString()).isEqualTo(live.ips());
        return new Walk(live, frames, c, cfi, fpOnly);
    }

    private static void assertReturnsInto(Walk w, int index, CfiChainLibrary lib, String function) {
        Frame f = w.frames().get(index);
        assertThat(f.module()).as(w.printed()).isEqualTo(lib.name());
        assertThat(f.symbol()).as(w.printed()).isEqualTo(function);
        assertThat(lib.returnOffsets(function)).as(w.printed()).contains(w.trace().ips().get(index) - lib.symbol(function));
    }

    @Test
    void aChainWithoutFramePointersUnwindsByCfi() {
        CfiChainLibrary lib = CfiChainLibrary.get(false);
        try (CaptureRoutine capture = new CaptureRoutine()) {
            Walk w = walk(lib, "a", capture);
            assertThat(w.frames().get(0).toString()).isEqualTo("test!capture_regs+0x7");
            assertReturnsInto(w, 1, lib, "c");
            assertReturnsInto(w, 2, lib, "b");
            assertReturnsInto(w, 3, lib, "a");
            // a's caller is jffi's native-call code: another named module.
            assertThat(w.frames().get(4).module()).as(w.printed()).isNotNull().isNotEqualTo(lib.name());
            // Frame pointers alone lose the chain: b loaded data into rbp before calling c.
            List<Long> naive = w.fpOnly().unwind(w.capture().ip(), w.capture().sp(), w.capture().bp(), w.capture().snapshot()).ips();
            assertThat(naive).as("frame-pointer walk %s", naive).doesNotContain(w.trace().ips().get(3));
        }
    }

    @Test
    void withFramePointersCfiAndFramePointersAgree() {
        CfiChainLibrary lib = CfiChainLibrary.get(true);
        try (CaptureRoutine capture = new CaptureRoutine()) {
            Walk w = walk(lib, "a", capture);
            assertReturnsInto(w, 1, lib, "c");
            assertReturnsInto(w, 2, lib, "b");
            assertReturnsInto(w, 3, lib, "a");
            // Code with frame pointers: the frame-pointer walk finds the same frames.
            List<Long> naive = w.fpOnly().unwind(w.capture().ip(), w.capture().sp(), w.capture().bp(), w.capture().snapshot()).ips();
            assertThat(naive.subList(0, 5)).as(w.printed()).isEqualTo(w.trace().ips().subList(0, 5));
        }
    }

    @Test
    void qsortCallingBackIntoTheLibraryUnwindsThroughLibc() {
        CfiChainLibrary lib = CfiChainLibrary.get(false);
        try (CaptureRoutine capture = new CaptureRoutine()) {
            Walk w = walk(lib, "sort_and_capture", capture);
            assertReturnsInto(w, 1, lib, "cmp");
            int i = 2;
            while (i < w.frames().size() && "libc.so.6".equals(w.frames().get(i).module())) i++;
            assertThat(i).as("libc frames between cmp and its caller: %s", w.printed()).isGreaterThan(2);
            assertThat(w.frames().subList(2, i)).as(w.printed()).anySatisfy(f -> assertThat(f.symbol()).contains("qsort"));
            assertReturnsInto(w, i, lib, "sort_and_capture");
            assertThat(w.frames().get(i + 1).module()).as(w.printed()).isNotNull().isNotEqualTo(lib.name());
            List<Long> naive = w.fpOnly().unwind(w.capture().ip(), w.capture().sp(), w.capture().bp(), w.capture().snapshot()).ips();
            assertThat(naive).as("frame-pointer walk").doesNotContain(w.trace().ips().get(i));
        }
    }

    @Test
    void aPthreadStackIsCompleteAndReliableDownToClone3() {
        CfiChainLibrary lib = CfiChainLibrary.get(false);
        try (CaptureRoutine capture = new CaptureRoutine()) {
            Walk w = walk(lib, "run_on_thread", capture);
            assertReturnsInto(w, 1, lib, "c");
            assertReturnsInto(w, 2, lib, "b");
            assertReturnsInto(w, 3, lib, "a");
            assertThat(w.frames().get(4).symbol()).as(w.printed()).isEqualTo("thread_main");
            // libc's start_thread and clone3 (not in a stripped libc's .dynsym: unnamed here, gdb names them).
            List<String> rest = w.frames().subList(5, w.frames().size()).stream().map(Frame::module).toList();
            assertThat(rest).as(w.printed()).containsExactly("libc.so.6", "libc.so.6");
            // Every step: the routine's rows, then CFI; the walk ended where libc's CFI says the stack ends.
            assertThat(w.trace().reliable()).as(w.printed()).isTrue();
        }
    }
}
