package dev.bpf4j.it.verifier;

import dev.bpf4j.api.Engines;
import dev.bpf4j.conformance.SuiteHelpers;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.asm.Assembler;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.EntryRegisters;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.verifier.VerifierException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The frame rule (docs/verifier.md, "Frames"): only an access the verifier typed as a stack pointer
 * may touch a frame, in both engines alike. An engine's frames lie where only that engine puts
 * them (the interpreter's in one native block, the JIT's on the thread stack), so a pointer of any
 * other kind that reached one would see what only that engine has there: the open class of issue 21,
 * where the conformance block plus a few KiB read an interpreter frame and faulted in the JIT.
 *
 * <p>A user helper that hands back its argument ({@code address_of}, which the verifier cannot see
 * through) gives these programs the real address of a frame slot as a plain number: before the
 * rule, each engine let the access into its own frame; now each refuses it.
 */
class FrameAccessRuleTest {
    /** A user helper the verifier knows nothing about: returns r1 (a pointer's bits, as a number). */
    static final int ADDRESS_OF = 200;
    static final int BLOCK = 64;
    static List<Engine> engines;
    static long block;
    static LoadOptions options;

    @BeforeAll
    static void setUp() {
        engines = Engines.available().stream().filter(e -> !e.name().equals("kernel")).toList();
        Assumptions.assumeTrue(engines.size() >= 2, "needs the interpreter and the JIT");
        block = NativeMemory.allocate(BLOCK);
        HelperRegistry helpers = SuiteHelpers.REGISTRY.toBuilder()
                .add(ADDRESS_OF, "address_of", (call, r1, r2, r3, r4, r5) -> r1).build();
        options = LoadOptions.defaults().withHelpers(helpers).withEntry(EntryRegisters.MEMORY_BLOCK);
    }

    @AfterAll
    static void free() { if (block != 0) NativeMemory.free(block); }

    /** r0 of each engine, or its error as "KIND at pc". */
    private static List<String> outcomes(String asm) {
        Program p = Assembler.assembleProgram("frames", asm);
        return engines.stream().map(e -> {
            NativeMemory.setMemory(block, BLOCK, (byte) 0);
            try (Executable x = Bpf.load(p, e, options)) {
                return "r0=" + x.run(RunContext.builder().arg(1, block).arg(2, BLOCK)
                        .region(new MemoryRegion("mem", block, BLOCK, true)).build());
            } catch (BpfRuntimeException ex) {
                return ex.kind() + " at " + ex.pc();
            }
        }).toList();
    }

    @Test
    void aNumberThatIsAFrameAddressIsNoStackPointer() {
        String asm = "stdw [%r10-8], 77\nmov %r1, %r10\nadd %r1, -8\ncall " + ADDRESS_OF + "\nldxdw %r0, [%r0+0]\nexit";
        assertThat(outcomes(asm)).containsOnly(ErrorKind.OUT_OF_BOUNDS + " at 4");
    }

    @Test
    void aStoreThroughSuchANumberIsRefusedToo() {
        String asm = "mov %r1, %r10\nadd %r1, -8\ncall " + ADDRESS_OF + "\nstdw [%r0+0], 5\nldxdw %r0, [%r10-8]\nexit";
        assertThat(outcomes(asm)).containsOnly(ErrorKind.OUT_OF_BOUNDS + " at 3");
    }

    @Test
    void theMemoryBlockMovedOntoAFrameReadsNothingThere() {
        // r6 = block + (frame slot - block): a block pointer (run-time checked) whose address is a frame's
        String asm = "mov %r6, %r1\nstdw [%r10-8], 77\ncall " + ADDRESS_OF + "\nmov %r7, %r0\n"
                + "mov %r1, %r10\nadd %r1, -8\ncall " + ADDRESS_OF + "\nsub %r0, %r7\nadd %r6, %r0\n"
                + "ldxdw %r0, [%r6+0]\nexit";
        assertThat(outcomes(asm)).containsOnly(ErrorKind.OUT_OF_BOUNDS + " at 9");
    }

    @Test
    void anAtomicThroughTheBlockStaysOutOfFrames() {
        String asm = "mov %r6, %r1\ncall " + ADDRESS_OF + "\nmov %r7, %r0\n"
                + "mov %r1, %r10\nadd %r1, -8\ncall " + ADDRESS_OF + "\nsub %r0, %r7\nadd %r6, %r0\n"
                + "mov %r1, 1\nlock add [%r6+0], %r1\nmov %r0, 0\nexit";
        assertThat(outcomes(asm)).containsOnly(ErrorKind.OUT_OF_BOUNDS + " at 9");
    }

    @Test
    void aHelperReadsAFrameOnlyThroughAStackPointerArgument() {
        // bpf_probe_read_kernel(dst, 8, src): the suites' form faults (-EFAULT) outside the run's memory
        String viaNumber = "stdw [%r10-8], 77\nmov %r1, %r10\nadd %r1, -8\ncall " + ADDRESS_OF + "\nmov %r3, %r0\n"
                + "mov %r1, %r10\nadd %r1, -16\nmov %r2, 8\ncall " + HelperIds.PROBE_READ_KERNEL + "\nexit";
        assertThat(outcomes(viaNumber)).containsOnly("r0=-14");
        String viaStack = "stdw [%r10-8], 77\nmov %r3, %r10\nadd %r3, -8\n"
                + "mov %r1, %r10\nadd %r1, -16\nmov %r2, 8\ncall " + HelperIds.PROBE_READ_KERNEL + "\nldxdw %r0, [%r10-16]\nexit";
        assertThat(outcomes(viaStack)).containsOnly("r0=77");
    }

    @Test
    void stackPointersInAnyRegisterKeepWorking() {
        // a pointer walking a stack buffer, a callee writing its caller's frame, a stack atomic
        String walk = "mov %r1, %r10\nadd %r1, -64\nmov %r2, 0\nloop:\nstxdw [%r1+0], %r2\nadd %r1, 8\nadd %r2, 1\n"
                + "jlt %r2, 8, loop\nldxdw %r0, [%r10-16]\nldxdw %r3, [%r10-64]\nadd %r0, %r3\nexit";
        assertThat(outcomes(walk)).containsOnly("r0=6");
        String callee = "stdw [%r10-8], 5\nmov %r1, %r10\nadd %r1, -8\ncall local f\nldxdw %r0, [%r10-8]\nexit\n"
                + "f:\nldxdw %r2, [%r1+0]\nmul %r2, 3\nstxdw [%r1+0], %r2\nmov %r1, 2\nlock add [%r10-8], %r1\nmov %r0, 0\nexit";
        assertThat(outcomes(callee)).containsOnly("r0=15");
        String signExtend = "stdw [%r10-8], -3\nmov %r1, %r10\nadd %r1, -8\nldxsw %r0, [%r1+0]\nexit";
        assertThat(outcomes(signExtend)).containsOnly("r0=-3");
    }

    @Test
    void oneInstructionCannotTakeAStackPointerAndARunTimeCheckedOne() {
        // the store would have to reach a frame on one path and never on the other
        String asm = "mov %r3, %r1\njeq %r2, 0, store\nmov %r3, %r10\nadd %r3, -8\nstore:\nstdw [%r3+0], 1\nmov %r0, 0\nexit";
        Program p = Assembler.assembleProgram("mixed", asm);
        for (Engine e : engines) {
            assertThatThrownBy(() -> Bpf.load(p, e, options).close()).as(e.name())
                    .isInstanceOfSatisfying(VerifierException.class, v -> {
                        assertThat(v.pc()).isEqualTo(4);
                        assertThat(v.reason()).contains("same insn cannot be used with different pointers");
                    });
        }
        String helperArg = "mov %r3, %r1\njeq %r2, 0, read\nmov %r3, %r10\nadd %r3, -8\nread:\n"
                + "mov %r1, %r10\nadd %r1, -16\nmov %r2, 8\ncall " + HelperIds.PROBE_READ_KERNEL + "\nexit";
        Program q = Assembler.assembleProgram("mixed-arg", helperArg);
        for (Engine e : engines) {
            assertThatThrownBy(() -> Bpf.load(q, e, options).close()).as(e.name())
                    .isInstanceOfSatisfying(VerifierException.class, v -> {
                        assertThat(v.pc()).isEqualTo(7);
                        assertThat(v.reason()).contains("same insn cannot be used with different pointers (R3");
                    });
        }
    }

    @Test
    void aStackPointerOrANumberAtOneInstructionIsFine() {
        // the number path never gets here at run time (r2 is the block's length), but the verifier explores it
        String asm = "mov %r3, 0\njeq %r2, 0, store\nmov %r3, %r10\nadd %r3, -8\nstore:\nstdw [%r3+0], 9\n"
                + "ldxdw %r0, [%r10-8]\nexit";
        assertThat(outcomes(asm)).containsOnly("r0=9");
    }
}
