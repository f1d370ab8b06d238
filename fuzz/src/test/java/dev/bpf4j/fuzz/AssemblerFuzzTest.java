package dev.bpf4j.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.bpf4j.asm.AsmPrinter;
import dev.bpf4j.asm.Assembler;
import dev.bpf4j.asm.AssemblerException;
import dev.bpf4j.isa.Insn;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Jazzer harness of the text assembler ({@code -- asm} of {@code .data} files): any text assembles or
 * fails with an {@link AssemblerException} naming line and reason; what assembles prints and assembles back
 * to the same slots ({@link AsmPrinter}'s promise) and runs alike on both engines. Replays
 * {@code AssemblerFuzzTestInputs/assemble/} (the asm of every {@code .data} file in the repository).
 */
class AssemblerFuzzTest {
    @FuzzTest(maxDuration = "10m")
    void assemble(byte[] input) {
        String text = new String(input, StandardCharsets.UTF_8);
        List<Insn> insns;
        try {
            insns = Assembler.assemble(text);
        } catch (AssemblerException e) {
            HarnessChecks.namesAReason(e);
            return;
        }
        String printed = AsmPrinter.print(insns);
        List<Insn> back = Assembler.assemble(printed);
        if (!back.equals(insns)) throw new AssertionError("round trip changed the program:\n" + text + "\nprinted as\n" + printed);
        HarnessChecks.runsAlike("jazzer asm", insns, null);
    }
}
