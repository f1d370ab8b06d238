package dev.bpf4j.cli;

import dev.bpf4j.api.Engines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class MainTest {
    @TempDir Path dir;

    @Test
    void helpListsEveryCommand() {
        CliRunner r = CliRunner.run("--help");
        assertThat(r.status()).isZero();
        assertThat(r.out()).contains("bpf4j run FILE", "bpf4j conformance [--engine interp|jit|jvm|kernel|all] PATH...",
                "bpf4j asm IN.s [-o OUT.bin]", "bpf4j disasm FILE.bin|FILE.data");
        assertThat(CliRunner.run().status()).isEqualTo(2);
        assertThat(CliRunner.run("run", "--help").out()).startsWith("Usage: bpf4j run FILE");
    }

    @Test
    void usageErrorsExitWith2AndShowTheUsage() {
        CliRunner unknown = CliRunner.run("frobnicate");
        assertThat(unknown.status()).isEqualTo(2);
        assertThat(unknown.err()).contains("unknown command 'frobnicate'");

        CliRunner missing = CliRunner.run("run");
        assertThat(missing.status()).isEqualTo(2);
        assertThat(missing.err()).contains("bpf4j run: missing FILE").contains("usage: bpf4j run FILE");

        assertThat(CliRunner.run("run", "x.data", "--bogus", "1").err()).contains("unknown option '--bogus'");
        assertThat(CliRunner.run("run", "x.data", "--engine").err()).contains("option '--engine' needs a value");
        assertThat(CliRunner.run("run", "x.data", "--engine", "gpu").err()).contains("unknown engine 'gpu'");
        assertThat(CliRunner.run("conformance").err()).contains("missing PATH");
        assertThat(CliRunner.run("disasm", "a.bin", "b.bin").err()).contains("expected one FILE");
    }

    @Test
    void runPrintsR0InDecimalAndHex() throws Exception {
        Path f = write("neg.data", "-- asm\nmov %r0, -2\nexit\n-- result\n-2\n");
        CliRunner r = CliRunner.run("run", f.toString());
        assertThat(r.err()).isEmpty();
        assertThat(r.status()).isZero();
        assertThat(r.out()).isEqualTo("r0 = -2 (0xfffffffffffffffe)\n");
    }

    @Test
    void runUsesTheMemoryBlockOfTheDataFileOrOfMem() throws Exception {
        Path f = write("mem.data", "-- asm\nldxh %r0, [%r1+1]\nadd %r0, %r2\nexit\n-- mem\n01 02 03 04\n-- result\n0x306\n");
        assertThat(CliRunner.run("run", f.toString()).out()).isEqualTo("r0 = 774 (0x306)\n");
        Path mem = write("other.hex", "00 ff ff\n00 00 # comment\n");
        assertThat(CliRunner.run("run", f.toString(), "--mem", mem.toString()).out()).isEqualTo("r0 = 65540 (0x10004)\n");
        Path bad = write("bad.hex", "00 zz\n");
        CliRunner r = CliRunner.run("run", f.toString(), "--mem", bad.toString());
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.err()).contains("bad.hex").contains("line 1").contains("zz");
    }

    @Test
    void runtimeErrorsPrintTheMessageAndExit1() throws Exception {
        Path f = write("oob.data", "-- asm\nldxb %r0, [%r1+0]\nexit\n-- error\nout of bounds\n");
        CliRunner r = CliRunner.run("run", f.toString());
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.err()).contains("program 'oob' pc 0: out of bounds");
    }

    @Test
    void runRawBytecodeAndReportTruncationAndInvalidOpcodes() throws Exception {
        Path ok = dir.resolve("ok.bin");
        Files.write(ok, new byte[] {(byte) 0xb7, 0, 0, 0, 42, 0, 0, 0, (byte) 0x95, 0, 0, 0, 0, 0, 0, 0});
        assertThat(CliRunner.run("run", ok.toString()).out()).isEqualTo("r0 = 42 (0x2a)\n");

        Path truncated = dir.resolve("t.bin");
        Files.write(truncated, new byte[] {(byte) 0xb7, 0, 0, 0, 42, 0, 0, 0, (byte) 0x95, 0, 0});
        CliRunner t = CliRunner.run("run", truncated.toString());
        assertThat(t.status()).isEqualTo(1);
        assertThat(t.err()).contains("truncated bytecode").contains("11 bytes").contains("offset 8");

        Path invalid = dir.resolve("i.bin");
        Files.write(invalid, new byte[] {(byte) 0xe7, 0, 0, 0, 0, 0, 0, 0, (byte) 0x95, 0, 0, 0, 0, 0, 0, 0});
        CliRunner i = CliRunner.run("run", invalid.toString());
        assertThat(i.status()).isEqualTo(1);
        assertThat(i.err()).contains("rejected").contains("0xe7");

        assertThat(CliRunner.run("run", dir.resolve("missing.bin").toString()).err()).contains("no such file");
        assertThat(CliRunner.run("run", write("x.txt", "").toString()).err()).contains("unknown file type");
    }

    @Test
    void asmThenDisasmRoundTrips() throws Exception {
        Path src = write("p.s", "# demo\nmov %r0, 1\nlddw %r1, 0x1122334455667788\nloop:\nadd %r0, %r1\njne %r0, 0, loop\nexit\n");
        CliRunner a = CliRunner.run("asm", src.toString());
        assertThat(a.status()).isZero();
        Path bin = dir.resolve("p.bin");
        assertThat(a.out()).contains("wrote 6 instruction slots (48 bytes) to " + bin);
        byte[] bytes = Files.readAllBytes(bin);

        CliRunner d = CliRunner.run("disasm", bin.toString());
        assertThat(d.status()).isZero();
        assertThat(d.out()).contains("lddw %r1, 0x1122334455667788");
        Path again = write("again.s", d.out());
        Path out2 = dir.resolve("again-out.bin");
        assertThat(CliRunner.run("asm", again.toString(), "-o", out2.toString()).status()).isZero();
        assertThat(Files.readAllBytes(out2)).isEqualTo(bytes);

        assertThat(CliRunner.run("disasm", bin.toString(), "--syntax", "llvm").out()).contains("r1 = 0x1122334455667788 ll");
    }

    @Test
    void asmSyntaxErrorsNameTheLine() throws Exception {
        Path src = write("bad.s", "mov %r0, 1\nfrobnicate %r0\nexit\n");
        CliRunner r = CliRunner.run("asm", src.toString());
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.err()).contains("bad.s").contains("line 2").contains("frobnicate");
    }

    @Test
    void dataFileSyntaxErrorsNameTheFileLine() throws Exception {
        Path f = write("bad.data", "-- asm\nmov %r0, 1\nbogus %r0\nexit\n-- result\n1\n");
        CliRunner r = CliRunner.run("run", f.toString());
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.err()).contains("bad.data").contains("line 3");
        Path g = write("bad2.data", "-- asm\nexit\n-- result\nnope\n");
        assertThat(CliRunner.run("run", g.toString()).err()).contains("bad2.data:4").contains("bad result");
    }

    @Test
    void jitIsReportedClearlyWhenAbsent() throws Exception {
        Path f = write("one.data", "-- asm\nmov %r0, 1\nexit\n-- result\n1\n");
        CliRunner r = CliRunner.run("run", f.toString(), "--engine", "jit");
        if (Engines.available().stream().noneMatch(e -> e.name().equals("jit"))) {
            assertThat(r.status()).isEqualTo(1);
            assertThat(r.err()).contains("JIT engine is not available");
        } else {
            assertThat(r.out()).isEqualTo("r0 = 1 (0x1)\n");
        }
        CliRunner all = CliRunner.run("run", f.toString(), "--engine", "all");
        assertThat(all.status()).isZero();
        assertThat(all.out()).contains("r0 = 1 (0x1)");
    }

    private Path write(String name, String text) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }
}
