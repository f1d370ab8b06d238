package dev.bpf4j.jit.probe;

import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.function.LongUnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Live patching under fire ({@link Hammer}): 4 threads call a function in a native loop ({@code hammer(n, f)}:
 * the sum of f(i), i &lt; n) while the main thread attaches and detaches a counting program on it 1,000
 * times (100 on the simpler sites: each cycle waits for every thread of the JVM to answer a signal,
 * slow on a loaded machine). Every loop returns the right sum (no thread ever ran a half-written instruction), no hit is
 * lost (every call made entirely while attached ran the program; the program ran exactly as often as
 * the trampolines counted), and the original bytes are back at the end. Sites: the fentry nop (one
 * instruction), a single displaced instruction (mov rax, [rip + x]), several displaced instructions
 * (sub rsp, 8; mov esi, 7) and five 1-byte nops — where a thread may be between two instructions.
 */
class ProbeHammerTest {
    /** 1,000 cycles on the hardest site (several displaced instructions, threads moved by signal), 100 on the others. */
    @ParameterizedTest
    @CsvSource({"O2, ae_mid, 1000", "fentry, mid, 100", "O2, ae_got, 100", "O2, ae_nops, 100", "O0, ae_mid, 100"})
    void attachDetachWhileFourThreadsCall(String where, String fn, int cycles) throws Exception {
        long function, hammer;
        LongUnaryOperator f;
        if (where.equals("fentry")) {
            function = TestLib.address(fn);
            hammer = TestLib.address("hammer");
            f = a -> 3 * a + 8;
        } else {
            AnyEntryLib lib = AnyEntryLib.valueOf(where);
            function = lib.address(fn);
            hammer = lib.address("ae_hammer");
            f = fn.equals("ae_got") ? a -> a + 5 : fn.equals("ae_nops") ? a -> a + 2 : a -> 3 * a + 8;
        }
        byte[] original = ProcessText.read(function, 16);
        long block = NativeMemory.allocate(96);
        NativeMemory.setMemory(block, 96, (byte) 0);
        List<MemoryRegion> regions = List.of(new MemoryRegion("counters", block, 96, true));
        Hammer.Result r;
        try (Executable x = Engines.JIT_DIRECT.load(ProbeCountTest.counter(0, block), LoadOptions.defaults())) {
            r = Hammer.run(hammer, function, f, cycles, () -> NativeProbes.attach(function, fn, ProbeProgram.of(x, regions)));
        }
        long hits = r.hits();
        assertThat(NativeMemory.getLong(block)).as("program runs = hits the trampolines counted").isEqualTo(hits);
        assertThat(hits).as("every call made while attached was hit").isGreaterThanOrEqualTo(r.surelyAttached()).isLessThanOrEqualTo(r.calls());
        assertThat(ProcessText.read(function, 16)).isEqualTo(original);
        System.out.printf("%s %s: %d calls, %d while surely attached, %d hits, sync=%s%n", where, fn, r.calls(), r.surelyAttached(), hits, CoreSync.mode());
        NativeMemory.free(block);
    }
}
