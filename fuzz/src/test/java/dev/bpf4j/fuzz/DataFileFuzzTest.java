package dev.bpf4j.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.bpf4j.conformance.DataFile;
import dev.bpf4j.conformance.DataFileException;
import dev.bpf4j.asm.Assembler;
import dev.bpf4j.asm.AssemblerException;
import dev.bpf4j.isa.Insn;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Jazzer harness of the {@code .data} parser: any text parses or fails with a {@link DataFileException}
 * naming the reason; a parsed program (assembled, or decoded from {@code -- raw}) runs alike on both engines
 * over its {@code -- mem} block. Replays {@code DataFileFuzzTestInputs/parseAndRun/} (every {@code .data}
 * file in the repository).
 */
class DataFileFuzzTest {
    @FuzzTest(maxDuration = "10m")
    void parseAndRun(byte[] input) {
        DataFile d;
        try {
            d = DataFile.parse("fuzz.data", new String(input, StandardCharsets.UTF_8));
        } catch (DataFileException e) {
            HarnessChecks.namesAReason(e);
            return;
        }
        if (d.skipped()) return;
        List<Insn> insns;
        try {
            insns = d.asm().isPresent() ? Assembler.assemble(d.asm().get())
                    : Arrays.asList(Insn.decodeAll(d.rawBytes().orElseThrow()));
        } catch (AssemblerException e) {
            HarnessChecks.namesAReason(e);
            return;
        }
        HarnessChecks.runsAlike("jazzer .data", insns, d.mem().orElse(null));
    }
}
