package dev.bpf4j.jit;

import dev.bpf4j.interp.InterpreterEngine;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.object.ProgramSpec;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Real clang output (the it-tests fixture with bpf-to-bpf calls) runs the same under the JIT and the interpreter. */
class ClangObjectTest {
    private static final Path SUBPROG = Path.of("..", "it-tests", "src", "test", "resources", "objects", "subprog.o");

    @Test
    void subprogramsFromClangAgreeWithTheInterpreter() {
        assumeTrue(Files.exists(SUBPROG), "fixture " + SUBPROG + " not found");
        BpfObjectSpec spec = BpfObjectSpec.read(SUBPROG);
        long ctx = NativeMemory.allocate(256);
        try {
            NativeMemory.putInt(ctx, 5); // __sk_buff.len / xdp_md.data (only read as a number)
            RunContext run = RunContext.builder().arg(1, ctx).region(new MemoryRegion("ctx", ctx, 256, false)).build();
            long[] expected = {5 * 5 + 3 * 3, 2 /* XDP_PASS: 4 + 8 > 10 */};
            String[] names = {"sock_prog", "xdp_prog"};
            for (int i = 0; i < names.length; i++) {
                ProgramSpec p = spec.program(names[i]);
                try (Executable jit = Bpf.load(p.program(), Jit.ENGINE, LoadOptions.defaults());
                     Executable interp = Bpf.load(p.program(), new InterpreterEngine(), LoadOptions.defaults())) {
                    assertThat(jit.run(run)).as(names[i]).isEqualTo(interp.run(run)).isEqualTo(expected[i]);
                }
                try (var x = Jit.LOADER.load(p.program(), LoadOptions.defaults())) {
                    assertThat(x.codeRegions().size()).as("functions + stubs of " + names[i]).isGreaterThanOrEqualTo(3);
                }
            }
        } finally {
            NativeMemory.free(ctx);
        }
    }
}
