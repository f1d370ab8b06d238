package dev.bpf4j.it;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.ObjectLoadOptions;
import dev.bpf4j.api.RunOptions;
import dev.bpf4j.api.RunResult;
import dev.bpf4j.jit.probe.NativeProbes;
import dev.bpf4j.jit.probe.PatchableLibrary;
import dev.bpf4j.jit.probe.Probe;
import dev.bpf4j.jit.probe.ProbeLink;
import dev.bpf4j.jit.probe.ProbeProgram;
import dev.bpf4j.jit.probe.RootCall;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Java examples of docs/objects-and-contexts.md and docs/native-probes.md (issue 25, point 7): each
 * test holds the doc's block as text, checks that the doc shows exactly it, and runs the same code
 * with the files it names put where the test finds them.
 */
class DocExamplesTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private static void assertDocShows(String doc, String block) throws Exception {
        assertThat(Files.readString(ROOT.resolve(doc))).as(doc).contains("```java\n" + block + "```\n");
    }

    static final String OBJECTS_BLOCK = """
            byte[] frame = new byte[64];                                        // the packet (data_in)
            try (BpfObject obj = BpfObject.open(Path.of("globals_data.o"))      // stage 1: editable spec
                    .variable("limit", 20)                                      //   initial value of a global (const volatile)
                    .load(ObjectLoadOptions.engine("jit"))) {                   // stage 2: live object
                RunResult r = obj.program("xdp_globals").run(RunOptions.packet(frame).withRepeat(1000));
                r.retval(); r.dataOut(); r.ctxOut(); r.averageDurationNs();
                obj.map("globals_.bss").lookup(new byte[4]);                    // BpfMap / typed MapView
            }
            """;

    @Test
    void objectsAndContextsExampleRunsOnBothEngines() throws Exception {
        assertDocShows("docs/objects-and-contexts.md", OBJECTS_BLOCK);
        Path object = ROOT.resolve("it-tests/src/test/resources/objects/corpus/globals_data.o");
        for (String engine : List.of("interp", "jit")) {
            byte[] frame = new byte[64];
            try (BpfObject obj = BpfObject.open(object)
                    .variable("limit", 20)
                    .load(ObjectLoadOptions.engine(engine))) {
                RunResult r = obj.program("xdp_globals").run(RunOptions.packet(frame).withRepeat(1000));
                // bss_sum grows by 64 per run: past limit * 100 = 2000 from run 32 on, so the last run drops
                assertThat(r.retval()).as(engine).isEqualTo(1);   // XDP_DROP
                byte[] rodata = obj.map("globals_.rodata").lookup(new byte[4]).orElseThrow();
                assertThat(ByteBuffer.wrap(rodata).order(ByteOrder.LITTLE_ENDIAN).getLong(0)).as(engine + " limit").isEqualTo(20);
                byte[] bss = obj.map("globals_.bss").lookup(new byte[4]).orElseThrow();
                assertThat(ByteBuffer.wrap(bss).order(ByteOrder.LITTLE_ENDIAN).getLong(0)).as(engine).isEqualTo(64_000);
            }
        }
    }

    static final String PROBES_BLOCK = """
            // stackcount.o: BCC's stackcount, a SEC("kprobe") program (bpf_get_stackid + a count per stack id)
            try (BpfObject obj = BpfObject.open(Path.of("stackcount.o")).load("jit")) {          // or "interp"
                ProbeProgram probe = ProbeProgram.of(obj.program("stackcount").defaultExecutable(), obj.mapTable().regions());
                try (ProbeLink link = NativeProbes.attach("/tmp/libcalls.so", "leaf", probe)) {
                    long r = RootCall.get().call(NativeProbes.address("/tmp/libcalls.so", "drive"), 3);  // drive(3) = 47
                    link.hits(); link.errors(); link.missed(); link.lastError();                     // 10 hits, 0, 0, empty
                }                                   // detach; the last detach puts the nop back
            }
            """;

    @Test
    void nativeProbesExampleRunsOnBothEngines(@TempDir Path tmp) throws Exception {
        assertDocShows("docs/native-probes.md", PROBES_BLOCK);
        Assumptions.assumeTrue(PatchableLibrary.gccAvailable(), "skipped: gcc is not installed (it builds examples/calls.c)");
        String lib = PatchableLibrary.build("calls", Files.readString(ROOT.resolve("examples/calls.c")), List.of()).toString();
        Path stackcount = tmp.resolve("stackcount.o");
        try (InputStream in = Files.newInputStream(ROOT.resolve("cli/src/main/resources/dev/bpf4j/cli/trace/stackcount.o"))) {
            Files.write(stackcount, in.readAllBytes());
        }
        for (String engine : List.of("interp", "jit")) {
            try (BpfObject obj = BpfObject.open(stackcount).load(engine)) {
                ProbeProgram probe = ProbeProgram.of(obj.program("stackcount").defaultExecutable(), obj.mapTable().regions());
                try (ProbeLink link = NativeProbes.attach(lib, "leaf", probe)) {
                    long r = RootCall.get().call(NativeProbes.address(lib, "drive"), 3);
                    assertThat(r).as(engine).isEqualTo(47);
                    assertThat(link.hits()).as(engine).isEqualTo(10);
                    assertThat(link.errors()).as(engine).isZero();
                    assertThat(link.missed()).as(engine).isZero();
                    assertThat(link.lastError()).as(engine).isEmpty();
                }
            }
        }
    }

    static final String RETURN_PROBES_BLOCK = """
            try (BpfObject obj = BpfObject.open(Path.of("retsum.o")).load("jit");    // SEC("kretprobe") int retsum(struct pt_regs *ctx)
                 ProbeLink link = Probe.attachReturn("/tmp/libcalls.so", "leaf", obj, "retsum")) {
                RootCall.get().call(NativeProbes.address("/tmp/libcalls.so", "drive"), 3);  // 10 returns of leaf
                link.hits(); link.returnsMissed(); link.returnsLost();                       // 10, 0, 0
            }
            """;

    @Test
    void returnProbesExampleRunsOnBothEngines(@TempDir Path tmp) throws Exception {
        assertDocShows("docs/native-probes.md", RETURN_PROBES_BLOCK);
        Assumptions.assumeTrue(PatchableLibrary.gccAvailable(), "skipped: gcc is not installed (it builds examples/calls.c)");
        String lib = PatchableLibrary.build("calls", Files.readString(ROOT.resolve("examples/calls.c")), List.of()).toString();
        Path retsum = tmp.resolve("retsum.o");
        Files.copy(ROOT.resolve("cli/src/test/resources/dev/bpf4j/cli/trace/retsum.o"), retsum);
        for (String engine : List.of("interp", "jit")) {
            try (BpfObject obj = BpfObject.open(retsum).load(engine);
                 ProbeLink link = Probe.attachReturn(lib, "leaf", obj, "retsum")) {
                assertThat(RootCall.get().call(NativeProbes.address(lib, "drive"), 3)).as(engine).isEqualTo(47);
                assertThat(link.hits()).as(engine).isEqualTo(10);
                assertThat(link.returnsMissed()).as(engine).isZero();
                assertThat(link.returnsLost()).as(engine).isZero();
                assertThat(link.errors()).as(engine).isZero();
            }
        }
    }
}
