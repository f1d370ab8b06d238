package dev.bpf4j.it.corpus;

import dev.bpf4j.cli.Main;
import dev.bpf4j.cli.jited.ObjdumpX86;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code bpf4j run OBJ.o} and {@code bpf4j disasm OBJ.o} on corpus objects. */
class ObjectCliTest {
    record Result(int status, String out, String err) {}

    static Result cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int status = Main.run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static String obj(String name) { return CorpusCase.DIR.resolve(name + ".o").toString(); }

    @Test void runsAnXdpProgramAndPrintsRetvalAndDataOut(@TempDir Path dir) throws Exception {
        byte[] frame = Packets.udp(53, 4);
        Path data = Files.write(dir.resolve("frame.bin"), frame);
        Result r = cli("run", obj("xdp_swap_mac"), "--program", "xdp_swap_mac", "--data-in", data.toString());
        byte[] swapped = frame.clone();
        System.arraycopy(Packets.SRC, 0, swapped, 0, 6);
        System.arraycopy(Packets.DST, 0, swapped, 6, 6);
        assertThat(r.err()).isEmpty();
        assertThat(r.out()).isEqualTo("retval: 3\ndata_out: " + Corpus.hex(swapped) + "\n");
        assertThat(r.status()).isZero();
    }

    @Test void syscallProgramPrintsCtxOutAndDumpsMapsAsBpftoolJson(@TempDir Path dir) throws Exception {
        Path ctx = Files.write(dir.resolve("ctx.bin"), Packets.le32(0, 2, 3, 0, 0, 0));
        Result r = cli("run", obj("syscall_ctx"), "--ctx-in", ctx.toString(), "--repeat", "2", "--dump-maps");
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("retval: 0\nctx_out: " + Corpus.hex(Packets.le32(0, 2, 3, 5, 2, 0)) + "\n");
        assertThat(r.out()).contains("{\"name\": \"syscall_.bss\", \"entries\": [{\"key\": [\"0x00\", \"0x00\", \"0x00\", \"0x00\"], \"value\": "
                + "[\"0x02\", \"0x00\", \"0x00\", \"0x00\", \"0x00\", \"0x00\", \"0x00\", \"0x00\"], "
                + "\"formatted\": {\"value\": {\".bss\": [{\"runs\": 2}]}}}]}");
    }

    @Test void perCpuMapsDumpOneValuePerCpu(@TempDir Path dir) throws Exception {
        Path data = Files.write(dir.resolve("f.bin"), Packets.udp(53, 4));
        Result r = cli("run", obj("xdp_percpu"), "--data-in", data.toString(), "--dump-maps");
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).contains("{\"name\": \"pcpu_stats\", \"entries\": [{\"key\": [\"0x00\", \"0x00\", \"0x00\", \"0x00\"], \"values\": [{\"cpu\": 0, \"value\": [");
    }

    @Test void allEnginesAgreeOnACorpusProgram(@TempDir Path dir) throws Exception {
        Path data = Files.write(dir.resolve("f.bin"), Packets.tcp(80, 64));
        Result r = cli("run", obj("tc_skb"), "--program", "tc_ttl", "--engine", "all", "--data-in", data.toString(), "--dump-maps");
        assertThat(r.out()).contains("== interp\nretval: 0\n").doesNotContain("== differences");
        assertThat(r.status()).as(r.out() + r.err()).isZero();
    }

    @Test void anObjectWithSeveralProgramsNeedsProgram() {
        Result r = cli("run", obj("xdp_swap_mac"));
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("choose one with --program: xdp_swap_mac, xdp_md_fields");
    }

    @Test void runtimeErrorsNameTheSourceLine() {
        Result r = cli("run", obj("xdp_proto_count"));
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.err()).contains("data_in of at least 14 bytes");
    }

    /** The listing is the code a load runs: loops.o's loops are bounded by the verifier, so no back-edge counts budget. */
    @Test void disasmJitedListsNoBudgetCountingWhereTheVerifierBoundsTheRun() {
        Assumptions.assumeTrue(ObjdumpX86.find().isPresent(), "objdump (binutils) is not installed");
        Result r = cli("disasm", obj("loops"), "--jited");
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).containsPattern("; pc \\d+: (if .* )?goto -\\d+\n"); // the loops' back-edges are there
        assertThat(r.out()).doesNotContainPattern("\tsub\\s+r9,0x1\n"); // r9 holds the budget (docs/jit-performance.md)
    }

    @Test void disasmResolvesMapReferencesByName() {
        Result r = cli("disasm", obj("xdp_proto_count"));
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("xdp_proto_count: section xdp, type XDP,");
        assertThat(r.out()).containsPattern("\\d+: r1 = map\\[proto_counts\\] ll");
        assertThat(r.out()).contains("; ./src/xdp_proto_count.c:");
        Result g = cli("disasm", obj("globals_data"));
        assertThat(g.out()).containsPattern("r\\d = map_value\\[globals_\\.bss\\]( \\+ \\d+)? ll");
    }
}
