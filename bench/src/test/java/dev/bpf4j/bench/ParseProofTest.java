package dev.bpf4j.bench;

import dev.bpf4j.jit.runtime.JitLoader;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.jit.compiler.CompiledProgram;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.LoadOptions;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The parse workload's byte loads are what RegionProof exists for: each is guarded by the
 * program's own length and {@code p + n > end} tests, so the JIT's guarded copy of main must
 * emit every one of them without a check, and can then merge the bytes of each header field into
 * one load (LoadCombining). If the proof or the merge stops working, this fails.
 */
class ParseProofTest {
    @Test
    void everyLoadOfParseIsProvenInTheGuardedCopy() {
        Program p = Workload.PARSE.program();
        CompiledProgram c = new JitLoader().compile(p, LoadOptions.defaults().withEntryArgs(2));
        List<Integer> loads = new ArrayList<>();
        Insn[] insns = p.toArray();
        for (int pc = 0; pc < insns.length; pc++) {
            if (insns[pc].cls() == Opcodes.LDX) loads.add(pc);
            if (insns[pc].isLddw()) pc++;
        }
        assertThat(loads).as("parse reads the packet byte by byte").hasSizeGreaterThanOrEqualTo(20);
        assertThat(c.proofs().guardedOffset()).as("main has a guarded copy").isPositive();
        assertThat(c.proofs().guardedPcs()).as("loads left unchecked in the guarded copy").containsExactly(loads.stream().mapToInt(Integer::intValue).toArray());
        assertThat(c.proofs().uncheckedPcs()).as("the checked body keeps every check").isEmpty();
    }

    @Test
    void parsesFieldsReadByteByByteBecomeWideLoads() {
        CompiledProgram c = new JitLoader().compile(Workload.PARSE.program(), LoadOptions.defaults().withEntryArgs(2));
        // the ethertype and the IPv4 total length (be16), both addresses as one be64 (clang ors
        // saddr << 32 with daddr), the two ports as one be32: as gcc -O2 compiles the C version
        assertThat(c.proofs().guardedCombinedPcs()).as("wide loads in the guarded copy, at each field's last byte load")
                .containsExactly(4, 20, 55, 68);
        assertThat(c.proofs().combinedPcs()).as("the checked body's loads are checked one by one").isEmpty();
    }
}
