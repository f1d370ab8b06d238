package dev.bpf4j.it.corpus;

import dev.bpf4j.api.RunOptions;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.object.ProgramType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static dev.bpf4j.it.corpus.ObjectCliTest.cli;
import static dev.bpf4j.it.corpus.ObjectCliTest.obj;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code bpf4j run OBJ.o --engine kernel|all} on every corpus program (first input of each case): the
 * kernel's output has the other engines' shape and {@code --engine all} finds no difference, maps
 * included. Runs in the kernel-oracle surefire execution; skips where bpf() is refused.
 */
class KernelCliTest {
    static List<CorpusCase> cases() { return Corpus.all(); }

    private static void needKernel() {
        assumeTrue(KernelSide.onClassPath(), "bpf4j-kernel is not on this surefire execution's class path (see it-tests/pom.xml)");
        String refused = KernelSide.unavailableReason();
        assumeTrue(refused == null, () -> "bpf() is not permitted here: " + refused);
    }

    /** The CLI options for the case's first run. */
    private static List<String> args(CorpusCase c, Path dir) throws Exception {
        RunOptions o = c.runs().get(0);
        List<String> a = new ArrayList<>(List.of("run", obj(c.object()), "--program", c.program(), "--dump-maps"));
        if (o.dataIn() != null) a.addAll(List.of("--data-in", Files.write(dir.resolve("data.bin"), o.dataIn()).toString()));
        if (o.ctxIn() != null) a.addAll(List.of("--ctx-in", Files.write(dir.resolve("ctx.bin"), o.ctxIn()).toString()));
        if (o.repeat() > 1) a.addAll(List.of("--repeat", String.valueOf(o.repeat())));
        return a;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void allEnginesAgreeWithTheKernel(CorpusCase c, @TempDir Path dir) throws Exception {
        needKernel();
        List<String> a = args(c, dir);
        a.addAll(List.of("--engine", "all"));
        ObjectCliTest.Result r = cli(a.toArray(String[]::new));
        assertThat(r.status()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("== interp\n", "== jit\n").doesNotContain("== differences");
        ProgramType type = BpfObjectSpec.read(c.path()).program(c.program()).type();
        if (type == ProgramType.KPROBE || type == ProgramType.PERF_EVENT) {
            assertThat(r.err()).isEqualTo("kernel: skipped (program '" + c.program() + "': the kernel has no BPF_PROG_TEST_RUN for "
                    + type + " programs)\n");
            assertThat(r.out()).doesNotContain("== kernel");
        } else {
            KernelSide.assumeHelperOffered(c, r.err());
            assertThat(r.err()).isEmpty();
            assertThat(r.out()).contains("== kernel\nretval: ");
        }
    }

    @Test
    void kernelAlonePrintsWhatTheInterpreterPrints(@TempDir Path dir) throws Exception {
        needKernel();
        CorpusCase tail = Corpus.all().stream().filter(c -> c.toString().equals("tail_calls/tail_entry")).findFirst().orElseThrow();
        List<String> a = args(tail, dir);
        ObjectCliTest.Result interp = cli(a.toArray(String[]::new));
        a.addAll(List.of("--engine", "kernel"));
        ObjectCliTest.Result kernel = cli(a.toArray(String[]::new));
        assertThat(kernel.status()).as(kernel.err()).isZero();
        assertThat(kernel.out()).isEqualTo(interp.out()).startsWith("retval: 3\ndata_out: ").contains("{\"name\": \"hits\", ");
    }

    @Test
    void inputEveryEngineRefusesIsOneVerdictNotADifference() {
        needKernel();
        // no data_in for an XDP program: bpf4j says it needs 14 bytes, the kernel's test run says EINVAL
        ObjectCliTest.Result all = cli("run", obj("tail_calls"), "--program", "tail_entry", "--engine", "all");
        assertThat(all.status()).isEqualTo(1);
        assertThat(all.out()).contains("== interp\nerror: tail_entry: an XDP run needs data_in of at least 14 bytes",
                "== kernel\nerror: bpf(BPF_PROG_TEST_RUN) failed: EINVAL").doesNotContain("== differences");
        ObjectCliTest.Result interp = cli("run", obj("tail_calls"), "--program", "tail_entry");
        assertThat(interp.status()).isEqualTo(1);
        assertThat(interp.err()).startsWith("bpf4j run: tail_entry: an XDP run needs data_in").doesNotContain("internal error");
    }

    @Test
    void kprobeOnTheKernelAloneIsAClearError() {
        needKernel();
        ObjectCliTest.Result r = cli("run", obj("kprobe_regs"), "--engine", "kernel");
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.err()).isEqualTo("bpf4j run: program 'kprobe_args': the kernel has no BPF_PROG_TEST_RUN for KPROBE programs\n");
    }

    @Test
    void whereBpfIsRefusedTheKernelIsSkippedOrRefused(@TempDir Path dir) throws Exception {
        assumeTrue(KernelSide.onClassPath(), "bpf4j-kernel is not on this surefire execution's class path");
        System.setProperty("bpf4j.kernel", "off");
        try {
            Path data = Files.write(dir.resolve("f.bin"), Packets.udp(53, 4));
            ObjectCliTest.Result k = cli("run", obj("xdp_percpu"), "--data-in", data.toString(), "--engine", "kernel");
            assertThat(k.status()).isEqualTo(2);
            assertThat(k.err()).isEqualTo("bpf4j run: the kernel engine cannot run here: bpf() use is switched off (-Dbpf4j.kernel=off)\n");
            ObjectCliTest.Result all = cli("run", obj("xdp_percpu"), "--data-in", data.toString(), "--engine", "all", "--dump-maps");
            assertThat(all.status()).as(all.out()).isZero();
            assertThat(all.err()).isEqualTo("kernel: skipped (bpf() use is switched off (-Dbpf4j.kernel=off))\n");
            assertThat(all.out()).contains("== interp\n", "== jit\n").doesNotContain("== kernel");
        } finally {
            System.clearProperty("bpf4j.kernel");
        }
    }
}
