package dev.bpf4j.verifier;

import dev.bpf4j.isa.Insn;
import org.junit.jupiter.api.Test;

import static dev.bpf4j.verifier.V.*;

/** Register numbers above r10 and writes to the read-only frame pointer r10. */
class RegisterTest {
    @Test void destinationAboveR10() { rejected(prog(new Insn(0xb7, 11, 0, 0, 0), EXIT), 0, "invalid register r11 in dst", "registers are r0-r10"); }

    @Test void sourceAboveR10() { rejected(prog(new Insn(0xbf, 0, 15, 0, 0), EXIT), 0, "invalid register r15 in src"); }

    @Test void loadBaseAboveR10() { rejected(prog(new Insn(0x79, 0, 12, 0, 0), EXIT), 0, "invalid register r12 in src", "LDX MEM DW"); }

    @Test void storeBaseAboveR10() { rejected(prog(mov(0, 0), new Insn(0x62, 13, 0, 0, 0), EXIT), 1, "invalid register r13 in dst"); }

    @Test void jumpRegisterAboveR10() { rejected(prog(mov(0, 0), new Insn(0x1d, 0, 11, 0, 0), EXIT), 1, "invalid register r11 in src"); }

    @Test void movToR10() { rejected(prog(new Insn(0xb7, 10, 0, 0, 0), EXIT), 0, "r10 is the read-only frame pointer", "ALU64 MOV K (0xb7)"); }

    @Test void aluOnR10() { rejected(prog(new Insn(0x04, 10, 0, 0, 8), EXIT), 0, "r10 is the read-only frame pointer", "ALU ADD K"); }

    @Test void negR10() { rejected(prog(new Insn(0x87, 10, 0, 0, 0), EXIT), 0, "r10 is the read-only frame pointer"); }

    @Test void byteSwapR10() { rejected(prog(new Insn(0xd7, 10, 0, 0, 64), EXIT), 0, "r10 is the read-only frame pointer"); }

    @Test void loadIntoR10() { rejected(prog(new Insn(0x79, 10, 10, -8, 0), EXIT), 0, "r10 is the read-only frame pointer", "LDX MEM DW"); }

    @Test void atomicFetchIntoR10() {
        rejected(prog(mov(1, 0), new Insn(0xdb, 1, 10, 0, 0x01), EXIT), 1, "r10 is the read-only frame pointer", "STX ATOMIC DW");
        rejected(prog(mov(1, 0), new Insn(0xc3, 1, 10, 0, 0xe1), EXIT), 1, "r10 is the read-only frame pointer"); // xchg
    }

    @Test void r10MayBeReadAndUsedAsABase() {
        accepted(prog(movReg(1, 10), new Insn(0x07, 1, 0, 0, -8), new Insn(0x7a, 1, 0, 0, 1), mov(2, 3),
                new Insn(0xdb, 10, 2, -16, 0x00), // atomic add without fetch only reads its src
                new Insn(0x79, 0, 10, -8, 0), EXIT));
    }

    @Test void r10CannotBeStoredOutsideTheStack() {
        // an address in memory the program can read back differs between engines and runs
        rejected(prog(movReg(1, 10), new Insn(0x07, 1, 0, 0, -8), new Insn(0xdb, 10, 10, -16, 0x00), mov(0, 0), EXIT),
                2, "R10 leaks addr into mem");
    }
}
