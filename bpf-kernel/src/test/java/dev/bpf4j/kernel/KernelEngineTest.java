package dev.bpf4j.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bpf4j.asm.Assembler;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ServiceLoader;

/** The kernel engine against the interpreter: same r0 (all 64 bits), same memory. */
class KernelEngineTest {
    static final LoadOptions SUITE = LoadOptions.defaults().withEntryArgs(2);

    @BeforeEach void needsBpf() { KernelAssumptions.assumeBpf(); }

    static Program asm(String name, String text) { return Assembler.assembleProgram(name, text); }

    /** Runs on both engines, demands the same outcome and returns it. */
    static Differential.Outcome agree(Program p, LoadOptions o, byte[] mem) {
        Differential.Outcome i = Differential.interp(p, o, mem);
        Differential.Outcome k = Differential.kernel(p, o, mem);
        assertThat(i.ok()).as("interpreter: %s", i).isTrue();
        assertThat(k.sameResult(i)).as("kernel %s vs interpreter %s", k, i).isTrue();
        return k;
    }

    @Test void allSixtyFourBitsOfR0ComeBack() {
        Program p = asm("wide", "lddw r0, 0x123456789abcdef0\nadd r0, 1\nexit");
        assertThat(agree(p, LoadOptions.defaults(), null).r0()).isEqualTo(0x123456789abcdef1L);
    }

    @Test void negativeAndThirtyTwoBitResults() {
        assertThat(agree(asm("neg", "mov r0, -5\nexit"), LoadOptions.defaults(), null).r0()).isEqualTo(-5L);
        assertThat(agree(asm("w", "mov32 r0, -5\nexit"), LoadOptions.defaults(), null).r0()).isEqualTo(0xfffffffbL);
        assertThat(agree(asm("div0", "mov r0, 7\nmov r1, 0\ndiv r0, r1\nexit"), LoadOptions.defaults(), null).r0()).isZero();
        assertThat(agree(asm("mod0", "mov r0, 7\nmov r1, 0\nmod r0, r1\nexit"), LoadOptions.defaults(), null).r0()).isEqualTo(7);
    }

    @Test void conformanceConventionMemoryAndLength() {
        // Sums the bytes, stores the sum in the last 8 bytes and returns sum * 2^32 + length.
        Program p = asm("sum", """
                mov r0, 0
                mov r3, 0
                loop:
                mov r4, r1
                add r4, r3
                ldxb r5, [r4]
                add r0, r5
                add r3, 1
                jlt r3, 8, loop
                stxdw [r1+8], r0
                lsh r0, 32
                add r0, r2
                exit""");
        byte[] mem = {1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 9, 9, 9, 9, 9};
        Differential.Outcome k = agree(p, SUITE, mem);
        assertThat(k.r0()).isEqualTo((36L << 32) + 16);
        assertThat(k.mem()[8]).isEqualTo((byte) 36);
    }

    @Test void noMemoryMeansZeroPointerAndLength() {
        assertThat(agree(asm("len", "mov r0, r2\nadd r0, r1\nexit"), SUITE, null).r0()).isZero();
    }

    @Test void onlyTheMainProgramsExitsGoThroughTheEpilogue() {
        Program p = asm("calls", """
                mov r6, r1
                call local double
                jeq r0, 84, big
                mov r0, 1
                exit
                big:
                lsh r0, 40
                exit
                double:
                mov r0, 42
                jeq r1, 0, done
                add r0, r0
                exit
                done:
                lddw r0, 0x7777777777
                exit""");
        byte[] mem = new byte[8];
        assertThat(agree(p, SUITE, mem).r0()).isEqualTo(84L << 40);
        assertThat(agree(p, SUITE, null).r0()).isEqualTo(1);
    }

    @Test void longProgramsReachTheEpilogueThroughGotol() {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 40_000; i++) text.append("add r0, 3\n");
        Program p = asm("long", "mov r0, 0\n" + text + "exit");
        assertThat(agree(p, LoadOptions.defaults(), null).r0()).isEqualTo(120_000);
    }

    @Test void atomicsOnMirroredMemory() {
        Program p = asm("atomics", """
                mov r2, 5
                lock add [r1+0], r2
                mov r3, 1
                lock fetch or [r1+8], r3
                mov r0, 7
                lock cmpxchg [r1+16], r3
                lock xchg32 [r1+24], r3
                add r0, r3
                exit""");
        byte[] mem = new byte[32];
        mem[0] = 10; mem[8] = 2; mem[16] = 7; mem[24] = 9;
        Differential.Outcome k = agree(p, SUITE, mem);
        assertThat(k.r0()).isEqualTo(7 + 9);
        assertThat(new byte[] {k.mem()[0], k.mem()[8], k.mem()[16], k.mem()[24]}).containsExactly(15, 3, 2, 2); // fetch-or leaves r3 = 2 for the cmpxchg and xchg
    }

    @Test void kernelRefusalCarriesTheVerifierLogWhereTheInterpreterFaults() {
        Program p = asm("oob", "ldxdw r0, [r1+16]\nexit");
        byte[] mem = new byte[16];
        Differential.Outcome i = Differential.interp(p, SUITE, mem);
        assertThat(i.error()).isInstanceOfSatisfying(BpfRuntimeException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.OUT_OF_BOUNDS));
        Differential.Outcome k = Differential.kernel(p, SUITE, mem);
        assertThat(k.error()).isInstanceOfSatisfying(KernelRejectedException.class, e -> {
            assertThat(e.errnoName()).isEqualTo("EACCES");
            assertThat(e.verifierLog()).contains("invalid access to map value");
            assertThat(e.getMessage()).contains("program 'oob'", "rejected");
        });
    }

    @Test void readOnlyRegionsAreReadOnlyForTheKernelToo() {
        Program p = asm("ro", "ldxb r0, [r1]\nstb [r1], 1\nexit");
        byte[] mem = {5, 0, 0, 0};
        assertThat(Differential.run(Differential.INTERP, p, SUITE, mem, false).error()).isInstanceOf(BpfRuntimeException.class);
        Differential.Outcome k = Differential.run(Differential.KERNEL, p, SUITE, mem, false);
        assertThat(k.error()).isInstanceOfSatisfying(KernelRejectedException.class,
                e -> assertThat(e.verifierLog()).contains("write into map forbidden"));
        Program read = asm("ro2", "ldxb r0, [r1]\nexit");
        assertThat(Differential.run(Differential.KERNEL, read, SUITE, mem, false).r0()).isEqualTo(5);
    }

    @Test void aRegistryHelperWithAnotherKernelMeaningIsRefusedAtLoad() {
        HelperRegistry unwind = HelperRegistry.builder().add(5, "unwind", (c, a, b, d, e, f) -> a).build();
        Program p = asm("unwind", "mov r1, 3\ncall 5\nexit");
        assertThatThrownBy(() -> new KernelEngine().load(p, SUITE.withHelpers(unwind)))
                .isInstanceOf(KernelLoadException.class)
                .hasMessageContaining("helper 5 is 'unwind' in the registry but 'bpf_ktime_get_ns' in the kernel");
    }

    @Test void kernelHelpersAreCalledById() {
        HelperRegistry named = HelperRegistry.builder().add(8, "bpf_get_smp_processor_id", (c, a, b, d, e, f) -> 0).build();
        Program p = asm("cpu", "call 8\nexit");
        try (KernelExecutable e = new KernelEngine().load(p, LoadOptions.defaults().withHelpers(named))) {
            assertThat(e.run(RunContext.builder().build())).isBetween(0L, (long) Runtime.getRuntime().availableProcessors() * 64);
        }
    }

    @Test void oneKernelProgramPerMemoryLayout() {
        Program p = asm("len", "mov r0, r2\nexit");
        long a = NativeMemory.allocate(32);
        try (KernelExecutable e = new KernelEngine().load(p, SUITE)) {
            RunContext c8 = RunContext.builder().arg(1, a).arg(2, 8).region(new MemoryRegion("m", a, 8, true)).build();
            RunContext c32 = RunContext.builder().arg(1, a).arg(2, 32).region(new MemoryRegion("m", a, 32, true)).build();
            assertThat(e.run(c8)).isEqualTo(8);
            assertThat(e.run(c32)).isEqualTo(32);
            assertThat(e.run(c8)).isEqualTo(8);
            assertThat(e.translated(c8)).isSameAs(e.translated(c8)).isNotEqualTo(e.translated(c32));
            // prologue: two lddw (r1, r2), ja, four epilogue slots, then the program
            assertThat(e.translated(c8).length()).isEqualTo(4 + 1 + 4 + p.length());
        } finally {
            NativeMemory.free(a);
        }
    }

    @Test void registeredAsAnEngineService() {
        assertThat(ServiceLoader.load(Engine.class).stream().map(s -> s.get().name()))
                .contains(KernelEngine.NAME, "interp");
    }
}
