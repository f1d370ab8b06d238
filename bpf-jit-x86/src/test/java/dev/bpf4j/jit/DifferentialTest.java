package dev.bpf4j.jit;

import dev.bpf4j.interp.InterpreterEngine;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.verifier.Validator;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The JIT against the interpreter (the reference semantics) over seeded random programs: same r0,
 * same error kind, pc and (region) address, same final region memory. A failure prints the seed;
 * rerun one with {@code -Dbpf4j.seed=<seed> -Dbpf4j.programs=1}.
 */
class DifferentialTest {
    private static final Engine INTERP = new InterpreterEngine();

    private static HelperRegistry helpers() {
        return HelperRegistry.builder()
                .add(ProgramGenerator.HELPER_MIX, "mix", (call, a, b, c, d, e) -> a * 31 + (b * 17 ^ c) + d - e + call.pc())
                .add(ProgramGenerator.HELPER_SUM, "sum", (call, a, b, c, d, e) -> {
                    call.checkArgument("buf", a, b, false);
                    long s = 0;
                    for (long i = 0; i < b; i++) s = s * 7 + NativeMemory.getByte(a + i);
                    return s;
                })
                .add(ProgramGenerator.HELPER_EXIT, "unwind", (call, a, b, c, d, e) -> {
                    if ((a & 3) == 0) call.exit(a + 100);
                    return a;
                })
                .build();
    }

    @Test
    void jitAgreesWithTheInterpreter() {
        long base = Long.getLong("bpf4j.seed", 0x5eed_2026L);
        int programs = Integer.getInteger("bpf4j.programs", 600);
        LoadOptions options = LoadOptions.defaults().withHelpers(helpers()).withEntryArgs(1);
        long region = NativeMemory.allocate(ProgramGenerator.REGION);
        int compared = 0, errors = 0, unchecked = 0;
        try {
            for (int i = 0; i < programs; i++) {
                long seed = base + i;
                Program p = new ProgramGenerator(seed, region).generate("diff" + i);
                try {
                    Validator.validate(p, options);
                } catch (BpfLoadException rejected) {
                    if (Boolean.getBoolean("bpf4j.showRejects")) System.out.println("REJECT " + rejected.getMessage());
                    continue;
                }
                try {
                    String expect = outcome(INTERP, p, options, region, seed);
                    String got = outcome(Jit.ENGINE, p, options, region, seed);
                    assertThat(got).as("seed %d (program %s)", seed, p.name()).isEqualTo(expect);
                    if (!expect.startsWith("r0=")) errors++;
                    compared++;
                    unchecked += Jit.LOADER.compile(p, options).proofs().uncheckedPcs().length;
                } catch (AssertionError | RuntimeException e) {
                    fail("seed " + seed + ": " + e.getMessage(), e);
                }
            }
        } finally {
            NativeMemory.free(region);
        }
        assertThat(compared).as("programs compared").isGreaterThan(programs / 4);
        assertThat(errors).as("programs that ended in an error").isGreaterThan(compared / 20);
        assertThat(compared - errors).as("programs that returned normally").isGreaterThan(compared / 5);
        // Accesses through r9 = r10 - 192 that StackProof proved: the comparison covers unchecked code too.
        assertThat(unchecked).as("accesses emitted without a check").isGreaterThan(compared);
    }

    @Test
    void handPickedProgramsAgree() {
        LoadOptions options = LoadOptions.defaults().withHelpers(helpers()).withEntryArgs(1);
        long region = NativeMemory.allocate(ProgramGenerator.REGION);
        try {
            java.util.List<Program> programs = java.util.List.of(
                    // stack pointer handed down two calls and written through
                    I.prog("handdown", I.mov64r(2, 10), I.alu64(dev.bpf4j.isa.Opcodes.ADD, 2, -16), I.st(dev.bpf4j.isa.Opcodes.DW, 10, -16, 5),
                            I.mov64r(1, 2), I.callLocal(3), I.ldx(dev.bpf4j.isa.Opcodes.DW, 0, 10, -16), I.exit(), I.exit(),
                            I.callLocal(1), I.exit(),
                            I.ldx(dev.bpf4j.isa.Opcodes.DW, 0, 1, 0), I.alu64(dev.bpf4j.isa.Opcodes.MUL, 0, 3), I.stx(dev.bpf4j.isa.Opcodes.DW, 1, 0, 0), I.exit()));
            // main calling itself with a depth from the data: the verifier follows it to the frame limit and refuses it
            Program self = I.prog("self", I.ldx(dev.bpf4j.isa.Opcodes.B, 2, 1, 0), I.alu64(dev.bpf4j.isa.Opcodes.AND, 2, 15),
                            I.mov64r(6, 1), I.stx(dev.bpf4j.isa.Opcodes.DW, 10, 2, -8),
                            I.jmp(dev.bpf4j.isa.Opcodes.JNE, 2, 0, 2), I.mov64(0, 1), I.exit(),
                            I.st(dev.bpf4j.isa.Opcodes.B, 6, 0, 0), I.callLocal(-9),
                            I.ldx(dev.bpf4j.isa.Opcodes.DW, 3, 10, -8), I.alu64r(dev.bpf4j.isa.Opcodes.ADD, 0, 3), I.exit());
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> Validator.validate(self, options))
                    .hasMessageContaining("call stack of 9 frames is too deep");
            for (int i = 0; i < programs.size(); i++) {
                Program p = programs.get(i);
                Validator.validate(p, options);
                for (long seed = 0; seed < 16; seed++) {
                    assertThat(outcome(Jit.ENGINE, p, options, region, seed)).as(p.name() + " seed " + seed)
                            .isEqualTo(outcome(INTERP, p, options, region, seed));
                }
            }
        } finally {
            NativeMemory.free(region);
        }
    }

    /** r0 or the error, then the region's final bytes. */
    static String outcome(Engine engine, Program p, LoadOptions options, long region, long seed) {
        byte[] init = new byte[ProgramGenerator.REGION];
        new Random(seed).nextBytes(init);
        NativeMemory.write(region, init, 0, init.length);
        RunContext ctx = RunContext.builder().arg(1, region)
                .region(new MemoryRegion("region", region, ProgramGenerator.REGION, true)).budget(300).build();
        StringBuilder s = new StringBuilder();
        try (Executable x = engine.load(p, options)) {
            long r0 = x.run(ctx);
            s.append("r0=").append(Long.toHexString(r0));
        } catch (BpfRuntimeException e) {
            boolean inRegion = e.address() - region >= -64 && e.address() - region < ProgramGenerator.REGION + 64;
            s.append(e.kind()).append('@').append(e.pc())
                    .append(" addr=").append(inRegion ? "region+" + (e.address() - region) : e.address() == 0 ? "0" : "stack");
        }
        s.append(" mem=");
        for (byte b : NativeMemory.read(region, ProgramGenerator.REGION)) s.append(String.format("%02x", b & 0xff));
        return s.toString();
    }
}
