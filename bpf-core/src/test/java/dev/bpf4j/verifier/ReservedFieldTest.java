package dev.bpf4j.verifier;

import dev.bpf4j.isa.Insn;
import org.junit.jupiter.api.Test;

import static dev.bpf4j.verifier.V.*;

/** Fields an instruction does not use must be 0; offsets and widths have only their defined values. */
class ReservedFieldTest {
    private static void rejectsAt1(Insn insn, String... fragments) {
        rejected(prog(mov(1, 0), insn, mov(0, 0), EXIT), 1, fragments);
    }

    @Test void aluImmediateWithSourceRegister() { rejectsAt1(new Insn(0x07, 1, 2, 0, 5), "reserved field src=2", "ALU64 ADD K (0x07)"); }

    @Test void aluRegisterWithImmediate() { rejectsAt1(new Insn(0x0f, 1, 1, 0, 5), "reserved field imm=5", "ALU64 ADD X (0x0f)"); }

    @Test void aluOffsetOnPlainOp() { rejectsAt1(new Insn(0x04, 1, 0, 1, 5), "offset off=1", "ALU ADD K (0x04)", "must be 0"); }

    @Test void divisionOffsetOtherThanSigned() { rejectsAt1(new Insn(0x37, 1, 0, 2, 5), "offset off=2", "0 (unsigned) or 1 (signed)"); }

    @Test void moduloRegisterOffsetOtherThanSigned() { rejectsAt1(new Insn(0x9f, 1, 1, -1, 0), "offset off=-1", "ALU64 MOD X"); }

    @Test void movsxWidthNotDefined() { rejectsAt1(new Insn(0xbf, 1, 1, 7, 0), "offset off=7", "8, 16, 32 (movsx)"); }

    @Test void movsx32FromThirtyTwoBits() { rejectsAt1(new Insn(0xbc, 1, 1, 32, 0), "offset off=32", "8, 16 (movsx)"); }

    @Test void movImmediateWithOffset() { rejectsAt1(new Insn(0xb7, 1, 0, 8, 0), "offset off=8", "must be 0"); }

    @Test void negWithImmediate() { rejectsAt1(new Insn(0x87, 1, 0, 0, 1), "reserved field imm=1", "ALU64 NEG K"); }

    @Test void negWithSource() { rejectsAt1(new Insn(0x84, 1, 3, 0, 0), "reserved field src=3"); }

    @Test void byteSwapWidth() { rejectsAt1(new Insn(0xdc, 1, 0, 0, 8), "byte swap width imm=8", "must be 16, 32 or 64"); }

    @Test void byteSwapOffset() { rejectsAt1(new Insn(0xd7, 1, 0, 4, 16), "reserved field off=4"); }

    @Test void jaWithImmediate() { rejectsAt1(new Insn(0x05, 0, 0, 0, 1), "reserved field imm=1", "JMP JA K"); }

    @Test void gotolWithOffset() { rejectsAt1(new Insn(0x06, 0, 0, 1, 0), "reserved field off=1", "JMP32 JA K"); }

    @Test void jaWithDestination() { rejectsAt1(new Insn(0x05, 1, 0, 0, 0), "reserved field dst=1"); }

    @Test void conditionalImmediateWithSource() { rejectsAt1(new Insn(0x15, 1, 2, 0, 0), "reserved field src=2", "JMP JEQ K"); }

    @Test void conditionalRegisterWithImmediate() { rejectsAt1(new Insn(0x1e, 1, 1, 0, 9), "reserved field imm=9", "JMP32 JEQ X"); }

    @Test void exitWithImmediate() { rejected(prog(mov(0, 0), new Insn(0x95, 0, 0, 0, 1)), 1, "reserved field imm=1", "JMP EXIT K"); }

    @Test void exitWithOffset() { rejected(prog(mov(0, 0), new Insn(0x95, 0, 0, 3, 0)), 1, "reserved field off=3"); }

    @Test void exitWithRegister() { rejected(prog(mov(0, 0), new Insn(0x95, 1, 0, 0, 0)), 1, "reserved field dst=1"); }

    @Test void callWithDestination() { rejectsAt1(new Insn(0x85, 2, 0, 0, HELPER_ID), "reserved field dst=2", "JMP CALL K"); }

    @Test void callWithOffset() { rejectsAt1(new Insn(0x85, 0, 0, 1, HELPER_ID), "reserved field off=1"); }

    @Test void callWithUnknownKind() { rejectsAt1(new Insn(0x85, 0, 3, 0, HELPER_ID), "unknown call kind src=3"); }

    @Test void ldxWithImmediate() { rejectsAt1(new Insn(0x79, 2, 10, -8, 1), "reserved field imm=1", "LDX MEM DW"); }

    @Test void storeImmediateWithSource() { rejectsAt1(new Insn(0x7a, 10, 1, -8, 0), "reserved field src=1", "ST MEM DW"); }

    @Test void storeRegisterWithImmediate() { rejectsAt1(new Insn(0x7b, 10, 1, -8, 4), "reserved field imm=4", "STX MEM DW"); }

    @Test void unknownAtomicOperation() { rejectsAt1(new Insn(0xdb, 10, 1, -8, 0x10), "unknown atomic operation imm=0x10"); }

    @Test void atomicFetchWithoutKnownOperation() { rejectsAt1(new Insn(0xc3, 10, 1, -8, 0xe0), "unknown atomic operation imm=0xe0"); }

    @Test void lddwWithOffset() { rejectsAt1(new Insn(0x18, 2, 0, 1, 0), "reserved field off=1", "LD IMM DW"); }
}
