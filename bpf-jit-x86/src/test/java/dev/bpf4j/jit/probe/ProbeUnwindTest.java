package dev.bpf4j.jit.probe;

import dev.bpf4j.jit.HelperBinding;
import dev.bpf4j.jit.JitEngine;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.unwind.CodeMap;
import dev.bpf4j.unwind.Frame;
import dev.bpf4j.unwind.ProcessCode;
import dev.bpf4j.unwind.SnapshotMemoryView;
import dev.bpf4j.unwind.StackTrace;
import dev.bpf4j.unwind.Symbolizer;
import dev.bpf4j.unwind.ThreadStack;
import dev.bpf4j.unwind.Unwinder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;

import static dev.bpf4j.isa.Opcodes.DW;
import static dev.bpf4j.jit.probe.P.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Stack walks through a probe: from inside a JIT program (a native helper captures its registers
 * and the stack) the walk shows the program, the trampoline, the traced function, its parent and
 * on up to the JVM's caller; from the hit's pt_regs (what bpf_get_stackid starts from) it shows
 * the traced function, its parent, ... under every engine.
 */
class ProbeUnwindTest {
    static final int CAPTURE = 60, WALK = 61;
    static final int OUT = 16 + 64 * 1024;

    /** What a JIT program on leaf saw at its last hit, called through top(3) → mid(4) → leaf(4, 7). */
    record Hit(long rbp, long rsp, long ptRegs, SnapshotMemoryView stack) {
        long reg(int offset) { return stack.readLong(ptRegs + offset); }
    }

    static final Unwinder UNWINDER = new Unwinder(ProcessCode.global());

    /** Attaches a capturing JIT program to leaf, calls top(3) and returns the capture (probe still attached while {@code inside} runs). */
    static Hit captureInLeaf(java.util.function.BiConsumer<Hit, StackCapture> inside) {
        return captureIn(TestLib.address("leaf"), "leaf", () -> assertThat(TestLib.call1(TestLib.address("top"), 3)).isEqualTo(17 + 20), inside);
    }

    /** The same on any function: attaches the capturing program to {@code function}, runs {@code call}, which must hit it. */
    static Hit captureIn(long function, String name, Runnable call, java.util.function.BiConsumer<Hit, StackCapture> inside) {
        long out = NativeMemory.allocate(OUT);
        long top = ThreadStack.current().high();
        try (StackCapture capture = new StackCapture()) {
            CodeMap.global().register(capture.region);
            try {
                JitEngine engine = new JitEngine().withNativeHelper(HelperBinding.nativeCode(CAPTURE, "capture", capture.code.address(), capture));
                Program p = prog("walker", mov64r(6, 1), lddw(1, out), lddw(2, top), call(CAPTURE),
                        lddw(3, out + OUT - 8), stx(DW, 3, 6, 0), mov64(0, 0), exit());
                List<MemoryRegion> regions = List.of(new MemoryRegion("out", out, OUT, true));
                try (Executable x = engine.load(p, LoadOptions.defaults()); // the native helper is not in the validator's registry
                     ProbeLink link = NativeProbes.attach(function, name, ProbeProgram.of(x, regions))) {
                    assertThat(link.program().direct()).isTrue();
                    call.run();
                    assertThat(link.errors()).isZero();
                    long rbp = NativeMemory.getLong(out), rsp = NativeMemory.getLong(out + 8);
                    long copied = top - rsp;
                    Hit hit = new Hit(rbp, rsp, NativeMemory.getLong(out + OUT - 8),
                            new SnapshotMemoryView(rsp, NativeMemory.read(out + 16, (int) copied)));
                    inside.accept(hit, capture);
                    return hit;
                }
            } finally {
                CodeMap.global().unregister(capture.region);
            }
        } finally {
            NativeMemory.free(out);
        }
    }

    static List<String> names(StackTrace t) {
        List<String> out = new ArrayList<>();
        for (Frame f : Symbolizer.global().symbolize(t)) out.add(f.symbol() == null ? "?" : f.symbol());
        return out;
    }

    @Test
    void walkFromInsideTheProgramShowsTrampolineTracedFunctionAndParents() {
        captureInLeaf((hit, capture) -> {
            StackTrace t = UNWINDER.unwind(capture.code.address(), hit.rsp(), hit.rbp(), hit.stack());
            List<String> names = names(t);
            assertThat(names.get(0)).isEqualTo("probe_test_capture");
            assertThat(names.get(1)).startsWith("bpf_prog_").endsWith("_walker");
            assertThat(names.subList(2, 6)).containsExactly("bpf_trampoline_leaf", "leaf", "mid", "top");
            assertThat(names.size()).as("walk goes on into the JVM's caller: " + names).isGreaterThan(6);
            assertThat(names.get(6)).isNotIn("leaf", "mid", "top");
        });
    }

    @Test
    void framePointerOnlyWalkAlsoSeesTheParent() {
        // What perf or gdb sees: no code map at all, only rbp chains (the ftrace frames F2 -> F1).
        captureInLeaf((hit, capture) -> {
            Unwinder fpOnly = new Unwinder(new CodeMap(), ProcessCode.global()::isCode);
            List<String> names = names(fpOnly.unwind(hit.stack().readLong(hit.rsp()), hit.rsp() + 8, hit.rbp(), hit.stack()));
            assertThat(names.get(0)).endsWith("_walker");
            assertThat(names.subList(1, 5)).containsExactly("bpf_trampoline_leaf", "leaf", "mid", "top");
        });
    }

    @Test
    void ptRegsHoldTheEntryStateAndWalkFromThem() {
        captureInLeaf((hit, capture) -> {
            assertThat(hit.reg(PtRegsLayout.IP)).isEqualTo(TestLib.address("leaf"));
            assertThat(hit.reg(PtRegsLayout.DI)).as("the last hit: leaf(4, 7) from mid(4)").isEqualTo(4);
            assertThat(hit.reg(PtRegsLayout.SI)).isEqualTo(7);
            long sp = hit.reg(PtRegsLayout.SP);
            assertThat(sp % 16).as("sp at a function entry is 8 mod 16").isEqualTo(8);
            assertThat(hit.reg(PtRegsLayout.CS)).isEqualTo(0x33);
            StackTrace t = UNWINDER.unwind(hit.reg(PtRegsLayout.IP), sp, hit.reg(PtRegsLayout.BP), hit.stack());
            List<String> names = names(t);
            assertThat(names.subList(0, 3)).containsExactly("leaf", "mid", "top");
            assertThat(names.size()).isGreaterThan(3);
        });
    }

    /** A Java helper walks the live stack from the hit's pt_regs, as bpf_get_stackid does. */
    @ParameterizedTest
    @EnumSource(value = Engines.class, names = {"INTERP", "JIT_UPCALL"})
    void walkFromPtRegsInAJavaRun(Engines engine) {
        List<List<String>> walks = new ArrayList<>();
        HelperRegistry helpers = HelperRegistry.builder().add(WALK, "walk_pt_regs", (call, r1, r2, r3, r4, r5) -> {
            long ip = NativeMemory.getLong(r1 + PtRegsLayout.IP), sp = NativeMemory.getLong(r1 + PtRegsLayout.SP);
            long bp = NativeMemory.getLong(r1 + PtRegsLayout.BP);
            walks.add(names(Unwinder.global().unwindCurrentThread(ip, sp, bp)));
            return 0;
        }).build();
        Program p = prog("walk", call(WALK), mov64(0, 0), exit());
        try (Executable x = engine.load(p, LoadOptions.defaults().withHelpers(helpers));
             ProbeLink link = NativeProbes.attach(TestLib.address("leaf"), "leaf", engine.probe(x, List.of()))) {
            assertThat(TestLib.call1(TestLib.address("top"), 3)).isEqualTo(37);
            assertThat(link.errors()).as("%s", link.lastError()).isZero();
        }
        assertThat(walks).hasSize(2);
        for (List<String> w : walks) assertThat(w.subList(0, 3)).containsExactly("leaf", "mid", "top");
    }
}
