package dev.bpf4j.analysis;

import dev.bpf4j.isa.Insn;
import org.junit.jupiter.api.Test;

import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;

/** Packet pointer arithmetic in the region proof's states. */
class RegionTransferTest {
    /**
     * {@code r3 = data + (r4 & 0xff)} at a thousand pcs in a row: each defines a variable and drops
     * the one r3 held. The facts keep at most one variable per register and slot, so a step's cost
     * does not grow with the length of straight-line code (it once made the proof quadratic).
     */
    @Test
    void straightLineCodeKeepsAtMostOneVariablePerValue() {
        AbstractState s = AbstractState.regionEntry();
        AluTransfer.apply(s, new Insn(ALU64 | K | AND, 4, 0, 0, 0xff), 0);
        for (int pc = 1; pc < 2000; pc += 2) {
            AluTransfer.apply(s, new Insn(ALU64 | X | MOV, 3, 1, 0, 0), pc);
            AluTransfer.apply(s, new Insn(ALU64 | X | ADD, 3, 4, 0, 0), pc + 1);
        }
        assertThat(s.kind(3)).as("r3 is a packet pointer").isEqualTo(AbstractState.PACKET);
        assertThat(s.facts().vhi(s.id(3))).isEqualTo(0xff);
        assertThat(s.facts().variables()).isLessThanOrEqualTo(AbstractState.N);
    }
}
