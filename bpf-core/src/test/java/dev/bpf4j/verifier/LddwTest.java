package dev.bpf4j.verifier;

import dev.bpf4j.isa.Insn;
import org.junit.jupiter.api.Test;

import static dev.bpf4j.verifier.V.*;
import static org.assertj.core.api.Assertions.assertThat;

/** lddw takes two slots: pairing, the second slot's fields, pseudo sources, jumps into its middle. */
class LddwTest {
    @Test
    void acceptsImmediateLoadAndSkipsItsSecondSlot() {
        // the second slot has an arbitrary imm (the high half) and must never be decoded as an instruction
        accepted(prog(lddw(0, 0xffffffff_00000000L), EXIT));
        accepted(prog(lddw(0, 0x95L << 32), EXIT));
    }

    @Test
    void missingSecondSlot() {
        rejected(prog(mov(0, 0), new Insn(0x18, 1, 0, 0, 5)), 1, "lddw needs two slots", "ends after pc 1");
    }

    @Test
    void secondSlotWithOpcode() {
        rejected(prog(new Insn(0x18, 0, 0, 0, 1), EXIT, EXIT), 0, "invalid second slot of lddw at pc 1", "opcode=0x95");
    }

    @Test
    void secondSlotWithRegistersOrOffset() {
        rejected(prog(new Insn(0x18, 0, 0, 0, 1), new Insn(0, 1, 0, 0, 0), EXIT), 0, "invalid second slot", "dst=1");
        rejected(prog(new Insn(0x18, 0, 0, 0, 1), new Insn(0, 0, 2, 0, 0), EXIT), 0, "invalid second slot", "src=2");
        rejected(prog(new Insn(0x18, 0, 0, 0, 1), new Insn(0, 0, 0, 3, 0), EXIT), 0, "invalid second slot", "off=3");
    }

    @Test
    void loneSecondSlotIsAnUnknownOpcode() {
        rejected(prog(mov(0, 0), new Insn(0, 0, 0, 0, 7), EXIT), 1, "unknown opcode 0x00");
    }

    @Test
    void pseudoSourcesNeedTheObjectLoader() {
        Insn[] mapFd = lddw(1, 3);
        mapFd[0] = new Insn(0x18, 1, 1, 0, 3);
        rejected(prog(mapFd, mov(0, 0), EXIT), 0, "lddw src=1 (map fd) is unresolved", "object loader", "only src=0");
        for (int src = 2; src <= 6; src++) {
            rejected(prog(new Insn(0x18, 1, src, 0, 0), new Insn(0, 0, 0, 0, 0), mov(0, 0), EXIT), 0, "lddw src=" + src, "unresolved");
        }
    }

    @Test
    void unknownSource() {
        rejected(prog(new Insn(0x18, 1, 7, 0, 0), new Insn(0, 0, 0, 0, 0), mov(0, 0), EXIT), 0, "unknown lddw source src=7");
    }

    @Test
    void pseudoSourcesAcceptedWhenSwitchedOn() {
        ValidatorFeatures pseudo = ValidatorFeatures.DEFAULT.withPseudoLddw(true);
        accepted(prog(new Insn(0x18, 1, 1, 0, 3), new Insn(0, 0, 0, 0, 0), mov(0, 0), EXIT), OPTIONS, pseudo);
        accepted(prog(new Insn(0x18, 1, 2, 0, 3), new Insn(0, 0, 0, 0, 16), mov(0, 0), EXIT), OPTIONS, pseudo);
        rejected(prog(new Insn(0x18, 1, 1, 0, 3), new Insn(0, 0, 0, 0, 8), mov(0, 0), EXIT), OPTIONS, pseudo, 0,
                "reserved field imm of the second slot (map fd)=8");
        // a function address (src 4) starts a subprogram, like a call target
        ValidatedProgram v = accepted(prog(new Insn(0x18, 1, 4, 0, 3), new Insn(0, 0, 0, 0, 0), mov(0, 0), EXIT,
                mov(0, 1), EXIT), OPTIONS, pseudo);
        assertThat(v.subprogramStarts()).containsExactly(0, 4);
        rejected(prog(new Insn(0x18, 1, 4, 0, 9), new Insn(0, 0, 0, 0, 0), mov(0, 0), EXIT), OPTIONS, pseudo, 0,
                "function address (lddw src=4) target pc 10", "outside the program");
    }

    @Test
    void jumpIntoTheMiddle() {
        rejected(prog(mov(0, 0), jeq(0, 0, 1), lddw(1, 5), EXIT), 1, "jump into the middle of the lddw at pc 2", "target pc 3");
        rejected(prog(mov(0, 0), lddw(1, 5), ja(-2), EXIT), 3, "jump into the middle of the lddw at pc 1");
    }

    @Test
    void callIntoTheMiddle() {
        rejected(prog(callLocal(2), EXIT, lddw(0, 5), EXIT), 0, "call target pc 3 is the second slot of the lddw at pc 2");
    }

    @Test
    void writeToFramePointer() {
        rejected(prog(lddw(10, 5), mov(0, 0), EXIT), 0, "r10 is the read-only frame pointer", "LD IMM DW (0x18)");
    }
}
