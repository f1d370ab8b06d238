package dev.bpf4j.it;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.RunOptions;
import dev.bpf4j.api.RunResult;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import dev.bpf4j.interp.InterpreterEngine;
import dev.bpf4j.asm.Assembler;
import dev.bpf4j.asm.ProgramBuilder;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static dev.bpf4j.isa.Reg.R0;
import static dev.bpf4j.isa.Reg.R1;
import static org.assertj.core.api.Assertions.assertThat;

/** The Java API example of README.md, kept compiling and correct. */
class ReadmeExampleTest {
    @Test
    void readmeExampleRuns() {
        Program sum = Assembler.assembleProgram("sum", """
                mov %r0, 0
                loop:
                add %r0, %r1
                sub %r1, 1
                jne %r1, 0, loop
                exit
                """);
        Program same = new ProgramBuilder()
                .mov64(R0, 0).label("loop").add64(R0, R1).sub64(R1, 1).jne(R1, 0, "loop").exit()
                .build("sum");
        assertThat(same.insns()).isEqualTo(sum.insns());
        try (Executable exe = Bpf.load(sum, new InterpreterEngine(), LoadOptions.defaults())) {
            long r0 = exe.run(RunContext.builder().arg(1, 100).build());
            assertThat(r0).isEqualTo(5050);
        }
    }

    @Test
    void readmeObjectExampleRunsOnBothEngines() {
        Path object = Path.of("src/test/resources/objects/corpus/xdp_proto_count.o");
        for (String engine : new String[]{"interp", "jit", "jvm"}) {
            byte[] packet = new byte[64];
            packet[12] = 0x08;
            try (BpfObject obj = BpfObject.open(object).maxEntries("proto_counts", 4).load(engine)) {
                RunResult r = obj.program("xdp_proto_count").run(RunOptions.packet(packet));
                assertThat(r.retval()).as(engine).isEqualTo(2);
                ByteBuffer v = ByteBuffer.wrap(obj.map("proto_counts").lookup(new byte[4]).orElseThrow()).order(ByteOrder.LITTLE_ENDIAN);
                assertThat(v.getLong(0)).as(engine + " packets").isEqualTo(1);
                assertThat(v.getLong(8)).as(engine + " bytes").isEqualTo(64);
            }
        }
    }

    @Test
    void readmeTestCommandIsTheOneCiRuns() throws Exception {
        Path root = Path.of("..").toAbsolutePath().normalize();
        String readme = Files.readString(root.resolve("README.md"));
        String ci = Files.readString(root.resolve(".ci/run"));
        String command = "mvn -B -ntp verify";
        assertThat(readme).contains("```sh\n" + command + "\n```");
        // JDK 17 first (the README's command as is), then the same on JDK 25 (docs/jdk.md).
        assertThat(ci).contains("\n" + command + "\n");
        assertThat(ci).contains("\nJAVA_HOME=\"$jdk25\" " + command + "\n");
        assertThat(readme).contains("./bpf4j run examples/fib.data");
        assertThat(Files.exists(root.resolve("examples/fib.data"))).isTrue();
    }
}
