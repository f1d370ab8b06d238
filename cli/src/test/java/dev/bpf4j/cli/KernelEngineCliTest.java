package dev.bpf4j.cli;

import dev.bpf4j.kernel.KernelBpf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code --engine kernel} and the kernel inside {@code --engine all} for {@code run} and
 * {@code conformance}, against the real kernel where bpf() works (skipped otherwise), and with bpf()
 * switched off ({@code -Dbpf4j.kernel=off}) to see what users without bpf() get.
 */
class KernelEngineCliTest {
    @TempDir Path dir;

    @AfterEach
    void switchBackOn() { System.clearProperty(KernelBpf.SWITCH); }

    private static void needKernel() {
        KernelBpf.Availability a = KernelBpf.availability();
        assumeTrue(a.available(), () -> "bpf() is not permitted here: " + a.reason());
    }

    private Path write(String name, String text) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, text);
        return f;
    }

    @Test
    void runOnTheKernelPrintsR0LikeTheOtherEngines() throws Exception {
        needKernel();
        Path f = write("mem.data", "-- asm\nldxh %r0, [%r1+1]\nadd %r0, %r2\nexit\n-- mem\n01 02 03 04\n-- result\n0x306\n");
        CliRunner k = CliRunner.run("run", f.toString(), "--engine", "kernel");
        assertThat(k.status()).as(k.err()).isZero();
        assertThat(k.out()).isEqualTo(CliRunner.run("run", f.toString(), "--engine", "interp").out()).isEqualTo("r0 = 774 (0x306)\n");
        CliRunner all = CliRunner.run("run", f.toString(), "--engine", "all");
        assertThat(all.status()).as(all.err()).isZero();
        assertThat(all.out()).contains("interp: r0 = 774 (0x306)\n", "jit: r0 = 774 (0x306)\n", "jvm: r0 = 774 (0x306)\n", "kernel: r0 = 774 (0x306)\n");
    }

    @Test
    void aProgramTheKernelVerifierRefusesIsSkippedOnTheKernelWithItsReason() throws Exception {
        needKernel();
        Path f = write("div0.data", "-- asm\nmov %r0, 7\ndiv %r0, 0\nexit\n-- result\n0\n");
        CliRunner all = CliRunner.run("run", f.toString(), "--engine", "all");
        assertThat(all.status()).as(all.err()).isZero();
        assertThat(all.out()).isEqualTo("interp: r0 = 0 (0x0)\njit: r0 = 0 (0x0)\njvm: r0 = 0 (0x0)\n");
        assertThat(all.err()).startsWith("kernel: skipped (the kernel verifier refused it (EINVAL): div by zero");
        CliRunner k = CliRunner.run("run", f.toString(), "--engine", "kernel");
        assertThat(k.status()).isEqualTo(1);
        assertThat(k.err()).contains("the kernel verifier rejected it (EINVAL)", "div by zero");
    }

    @Test
    void conformanceOnAllEnginesSkipsWhatTheKernelVerifierRefuses() throws Exception {
        needKernel();
        write("good.data", "-- asm\nmov %r0, 1\nexit\n-- result\n1\n");
        Path div0 = write("div0.data", "-- asm\nmov %r0, 7\ndiv %r0, 0\nexit\n-- result\n0\n");
        CliRunner ok = CliRunner.run("conformance", "--engine", "all", dir.toString());
        assertThat(ok.status()).as(ok.out()).isZero();
        assertThat(ok.out()).isEqualTo("SKIP [kernel] " + div0 + ": the kernel verifier refused it (EINVAL): div by zero\n"
                + "2 passed, 0 failed; kernel skipped 1 (refused by the kernel verifier or not comparable)\n");
        CliRunner kernelOnly = CliRunner.run("conformance", "--engine", "kernel", div0.toString());
        assertThat(kernelOnly.status()).isZero();
        assertThat(kernelOnly.out()).endsWith("0 passed, 0 failed, 1 skipped; kernel skipped 1 (refused by the kernel verifier or not comparable)\n");
    }

    @Test
    void whereBpfIsRefusedKernelFailsClearlyAndAllRunsTheInProcessEngines() throws Exception {
        System.setProperty(KernelBpf.SWITCH, "off");
        Path f = write("one.data", "-- asm\nmov %r0, 1\nexit\n-- result\n1\n");
        CliRunner k = CliRunner.run("run", f.toString(), "--engine", "kernel");
        assertThat(k.status()).isEqualTo(2);
        assertThat(k.err()).isEqualTo("bpf4j run: the kernel engine cannot run here: bpf() use is switched off (-Dbpf4j.kernel=off)\n");
        CliRunner all = CliRunner.run("run", f.toString(), "--engine", "all");
        assertThat(all.status()).isZero();
        assertThat(all.out()).isEqualTo("interp: r0 = 1 (0x1)\njit: r0 = 1 (0x1)\njvm: r0 = 1 (0x1)\n");
        assertThat(all.err()).isEqualTo("kernel: skipped (bpf() use is switched off (-Dbpf4j.kernel=off))\n");
        CliRunner conf = CliRunner.run("conformance", "--engine", "all", f.toString());
        assertThat(conf.status()).isZero();
        assertThat(conf.out()).isEqualTo("1 passed, 0 failed\n");
        assertThat(CliRunner.run("conformance", "--engine", "kernel", f.toString()).status()).isEqualTo(2);
    }
}
