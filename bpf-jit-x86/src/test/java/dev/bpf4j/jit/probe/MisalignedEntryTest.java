package dev.bpf4j.jit.probe;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Type;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;

import static dev.bpf4j.isa.Opcodes.DW;
import static dev.bpf4j.jit.probe.P.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * gcc (-fipa-stack-alignment, on by default) calls a function of its own unit that needs no stack
 * alignment with rsp 8 bytes off the SysV alignment: here {@code loop} pushes four registers and
 * calls {@code probed} with its entry rsp 16-aligned instead of 8 mod 16. The trampoline aligns its
 * frame itself, so the jffi upcall closure (which faults on movaps with a misaligned stack) and
 * JIT code run fine. The program records {@code pt_regs.sp & 15} to show the case was reached.
 */
class MisalignedEntryTest {
    static final String SOURCE = String.join("\n",
            "__attribute__((noinline)) long probed(long a) { return a + 1; }",
            "__attribute__((noinline, no_instrument_function)) long loop(long n) {",
            "    long s = 0;",
            "    for (long i = 0; i < n; i++) s += probed(i);",
            "    return s;",
            "}", "");
    private static final CallContext L_L = CallContext.getCallContext(Type.SINT64, new Type[]{Type.SINT64}, CallingConvention.DEFAULT, false);

    @ParameterizedTest
    @EnumSource(Engines.class)
    void upcallsAndJitCodeRunOnAMisalignedEntry(Engines engine) {
        Assumptions.assumeTrue(PatchableLibrary.gccAvailable(), "gcc is not installed: skipping the native probe test");
        String lib = PatchableLibrary.build("misaligned", SOURCE, List.of()).toString();
        long probed = NativeProbes.address(lib, "probed"), loop = NativeProbes.address(lib, "loop");
        long block = NativeMemory.allocate(16);
        NativeMemory.setMemory(block, 16, (byte) 0);
        // block[0] += 1; block[1] = pt_regs.sp & 15
        Executable x = engine.load(prog("entry_sp", lddw(3, block), mov64(4, 1), atomicAdd(3, 4, 0),
                ldx(DW, 2, 1, PtRegsLayout.SP), and64(2, 15), stx(DW, 3, 2, 8), mov64(0, 0), exit()), LoadOptions.defaults());
        try (ProbeLink link = NativeProbes.attach(probed, "probed", engine.probe(x, List.of(new MemoryRegion("block", block, 16, true))))) {
            for (int i = 0; i < 50; i++) assertThat(Invoker.getInstance().invokeN1(L_L, loop, 100)).isEqualTo(100 * 101 / 2);
            assertThat(link.errors()).as("%s", link.lastError()).isZero();
            assertThat(link.hits()).isEqualTo(5000);
            assertThat(NativeMemory.getLong(block)).isEqualTo(5000);
            assertThat(NativeMemory.getLong(block + 8)).as("probed entered with rsp 16-aligned (gcc's IPA stack alignment)").isZero();
        } finally {
            x.close();
            NativeMemory.free(block);
        }
    }
}
