package dev.bpf4j.fuzz;

import dev.bpf4j.api.Engines;
import dev.bpf4j.conformance.DataFile;
import dev.bpf4j.asm.Assembler;
import dev.bpf4j.isa.Insn;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;

class MinimiserTest {
    static final int ARSH64_IMM = ALU64 | ARSH | K;

    /** The interpreter against an interpreter that flips r0 in programs holding {@code arsh rX, imm}. */
    static DifferentialHarness brokenHarness() {
        return new DifferentialHarness(List.of(Engines.byName("interp"), new FlipR0Engine(Engines.byName("interp"), ARSH64_IMM)));
    }

    static FuzzCase firstGrammarCaseShowing(DifferentialHarness h) {
        GrammarGenerator g = new GrammarGenerator(GrammarOptions.defaults().withObjectPercent(0)); // programs over a memory block
        for (long seed = 0; seed < 500; seed++) {
            FuzzCase c = g.generate(seed);
            if ("r0".equals(h.run(c).mismatchClass())) return c;
        }
        throw new AssertionError("no grammar program among 500 seeds returns normally with an arsh64 imm");
    }

    @Test void shrinksASyntheticMismatchToTheOpcodeItsInputsAndExit(@TempDir Path out) throws Exception {
        DifferentialHarness h = brokenHarness();
        FuzzCase big = firstGrammarCaseShowing(h);
        Minimiser m = new Minimiser(c -> "r0".equals(h.run(c).mismatchClass()), 5000);
        FuzzCase small = m.minimise(big);
        System.out.println("minimised " + big.origin() + ": " + big.length() + " -> " + small.length() + " slots in " + m.tries() + " tries");

        System.out.print(dev.bpf4j.asm.AsmPrinter.print(small.insns()));
        assertThat(big.length()).isGreaterThan(20);
        // arsh rX, imm; exit; and at most r0 and rX written first (the validator wants both initialised)
        assertThat(small.length()).isLessThanOrEqualTo(4);
        assertThat(small.insns()).anyMatch(i -> i.opcode() == ARSH64_IMM);
        assertThat(small.insns().get(small.length() - 1).opcode()).isEqualTo(JMP | EXIT);
        // (the engine flips for a program holding the opcode, so a jump over it, or an exit before it
        // that leaves it dead, may stay: the verifier, unlike Linux's, accepts unreachable code)
        assertThat(small.insns().subList(0, small.length() - 1)).allMatch(i -> i.opcode() == ARSH64_IMM
                || i.equals(new Insn(ALU64 | MOV | K, i.dst(), 0, 0, 0)) || op(i.opcode()) == JA || i.opcode() == (JMP | EXIT));
        assertThat(small.mem()).isNull();

        DifferentialReport r = h.run(small);
        Path file = Reproducer.write(out, r, big.origin(), big.length());
        assertThat(file.getFileName().toString()).isEqualTo(Reproducer.fileName(small)).matches("fuzz-[0-9a-f]{12}\\.data");
        DataFile d = DataFile.read(file);
        assertThat(Assembler.assemble(d.asm().orElseThrow())).isEqualTo(small.insns());
        long interpR0 = r.outcomes().get(0).first().r0();
        assertThat(d.result()).hasValue(interpR0);
        assertThat(java.nio.file.Files.readString(file.toAbsolutePath()))
                .contains("# r0: interp r0 = ", "# flip-interp: r0 = ", "minimised to " + small.length() + " of " + big.length());
    }

    @Test void removingInstructionsReaimsJumpsAndCalls() {
        List<Insn> p = Assembler.assemble("""
                mov %r0, 1
                jeq %r1, 0, +3
                mov %r0, 2
                mov %r0, 3
                mov %r0, 4
                call local +1
                exit
                mov %r0, 5
                exit
                """);
        List<Insn> q = Minimiser.remove(p, 2, 3);
        assertThat(q).hasSize(7);
        assertThat(q.get(1).off()).as("jeq still lands on mov r0, 4").isEqualTo(1);
        assertThat(q.get(3).imm()).as("call still reaches the subprogram").isEqualTo(1);
        List<Insn> r = Minimiser.remove(p, 4, 4);
        assertThat(r.get(1).off()).as("a jump into the removed range lands on the next kept slot").isEqualTo(2);
        assertThat(Minimiser.units(Assembler.assemble("lddw %r0, 0x100000000\nexit"))).hasSize(2);
    }
}
