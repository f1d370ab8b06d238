package dev.bpf4j.it.corpus;

import dev.bpf4j.api.Engines;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.object.ProgramType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import dev.bpf4j.api.BpfObject;
import dev.bpf4j.runtime.BpfLoadException;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The corpus in the Linux kernel ({@link KernelSide}: the object loaded by bpf4j-kernel's KernelObject
 * with BTF, func_info, maps, prog arrays and frozen .rodata as libbpf sets them up, runs through
 * BPF_PROG_TEST_RUN) against bpf4j's interpreter: retval, data_out, ctx_out and every map (queues and
 * stacks popped and pushed back, ring buffers drained). kprobe and perf_event programs are left out:
 * the kernel has no test run for them.
 */
class KernelCorpusTest {
    static List<CorpusCase> cases() {
        return Corpus.all().stream().filter(c -> {
            ProgramType t = BpfObjectSpec.read(c.path()).program(c.program()).type();
            return t != ProgramType.KPROBE && t != ProgramType.PERF_EVENT;
        }).toList();
    }

    /** The kernel verifier refuses what bpf4j's load-time spin lock check refuses, for the same reason. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lock_no_btf", "lock_no_field", "lock_wrong_off", "lock_no_unlock", "lock_call_inside", "unlock_only"})
    void spinLockRefusalsMatchTheKernel(String program) {
        assumeTrue(KernelSide.onClassPath(), "bpf4j-kernel is not on this surefire execution's class path (see it-tests/pom.xml)");
        String refused = KernelSide.unavailableReason();
        assumeTrue(refused == null, () -> "bpf() is not permitted here: " + refused);
        BpfObjectSpec spec = SpinLockObjectTest.onlyProgram(program);
        String kernel = KernelSide.refusal(spec, program);
        assertThat(kernel).as("the kernel refuses %s", program).isNotNull();
        BpfLoadException ours = catchThrowableOfType(() -> BpfObject.open(spec).load("interp"), BpfLoadException.class);
        assertThat(ours).as("bpf4j refuses %s as the kernel does: %s", program, kernel).isNotNull();
        String reason = ours.getMessage().substring(ours.getMessage().lastIndexOf("): ") + 3).replaceFirst("^bpf_spin_(un)?lock: ", "");
        assertThat(kernel).as("bpf4j: %s", ours.getMessage()).contains(reason);
    }

    /**
     * Linux refuses the programs of packet_moves.o that use a packet pointer across a helper that moves the
     * packet at the instruction where bpf4j refuses them ({@link PacketMoveTest}); privileged, Linux turns the
     * stale pointer into a scalar (allow_ptr_leaks) where bpf4j, refusing pointer leaks, leaves it unreadable.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"stale_after_shrink, 13, R6", "old_pointer_inside, 12, R6", "stale_spilled, 15, R1", "stale_across_subprog, 12, R6"})
    void stalePacketPointerRefusalsMatchTheKernel(String program, int pc, String reg) {
        assumeTrue(KernelSide.onClassPath(), "bpf4j-kernel is not on this surefire execution's class path (see it-tests/pom.xml)");
        String refused = KernelSide.unavailableReason();
        assumeTrue(refused == null, () -> "bpf() is not permitted here: " + refused);
        String kernel = KernelSide.refusal(PacketMoveTest.alone(program), program);
        KernelSide.assumeHelperOffered(program, kernel);
        assertThat(kernel).as("Linux refuses %s", program).isNotNull().contains("\n" + pc + ": ").contains(reg + " invalid mem access 'scalar'");
    }

    /** bpf_redirect_map's verdicts, the redirect maps' update errnos and contents, and their creation checks, as Linux's. */
    @org.junit.jupiter.api.Test
    void redirectMapMatchesTheKernel() {
        assumeTrue(KernelSide.onClassPath(), "bpf4j-kernel is not on this surefire execution's class path (see it-tests/pom.xml)");
        String refused = KernelSide.unavailableReason();
        assumeTrue(refused == null, () -> "bpf() is not permitted here: " + refused);
        Outcome kernel = KernelSide.redirectMapOutcome();
        RedirectMapCases.check(kernel);
        assertThat(kernel).isEqualTo(RedirectMapCases.outcome(Engines.byName("interp")));
        for (int[] c : RedirectMapObjectTest.CREATES) {
            assertThat(KernelSide.createErrno(c)).as("Linux: create %s", java.util.Arrays.toString(c)).isEqualTo(c[5]);
        }
    }

    /**
     * -EBUSY as a little-endian u64 in ctx_out: Linux's bpf_find_vma answers it when it cannot take the
     * mm's lock at once ({@code mmap_read_trylock}), as when another thread of this JVM maps memory
     * just then; bpf4j has no such lock. A kernel outcome with it that differs is run again.
     */
    private static final String EBUSY = "f0ffffffffffffff";

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void kernelAgrees(CorpusCase c) {
        assumeTrue(KernelSide.onClassPath(), "bpf4j-kernel is not on this surefire execution's class path (see it-tests/pom.xml)");
        String refused = KernelSide.unavailableReason();
        assumeTrue(refused == null, () -> "bpf() is not permitted here: " + refused);
        Outcome reference = CorpusDifferentialTest.outcome(c, Engines.byName("interp"));
        Outcome kernel = KernelSide.outcome(c);
        for (int again = 0; again < 5 && !kernel.runs().equals(reference.runs()) && kernel.runs().stream().anyMatch(r -> r.contains(EBUSY)); again++) {
            kernel = KernelSide.outcome(c);   // bpf_find_vma's mmap_read_trylock lost to another thread of this JVM
        }
        assertThat(kernel.runs()).as("%s runs: kernel vs interp", c).isEqualTo(reference.runs());
        assertThat(kernel.maps()).as("%s maps: kernel vs interp", c).isEqualTo(reference.maps());
    }
}
