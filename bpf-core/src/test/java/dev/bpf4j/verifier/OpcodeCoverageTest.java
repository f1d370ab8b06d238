package dev.bpf4j.verifier;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;

import static dev.bpf4j.verifier.V.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every opcode byte: the RFC 9669 v1-v4 opcodes (Appendix A, written out here as an independent
 * list) are accepted in a valid instance; every other byte is rejected as unknown or unsupported.
 */
class OpcodeCoverageTest {
    private static final int[] RFC_OPCODES = {
            // ALU (32-bit)
            0x04, 0x0c, 0x14, 0x1c, 0x24, 0x2c, 0x34, 0x3c, 0x44, 0x4c, 0x54, 0x5c, 0x64, 0x6c, 0x74, 0x7c,
            0x84, 0x94, 0x9c, 0xa4, 0xac, 0xb4, 0xbc, 0xc4, 0xcc, 0xd4, 0xdc,
            // ALU64
            0x07, 0x0f, 0x17, 0x1f, 0x27, 0x2f, 0x37, 0x3f, 0x47, 0x4f, 0x57, 0x5f, 0x67, 0x6f, 0x77, 0x7f,
            0x87, 0x97, 0x9f, 0xa7, 0xaf, 0xb7, 0xbf, 0xc7, 0xcf, 0xd7,
            // JMP
            0x05, 0x15, 0x1d, 0x25, 0x2d, 0x35, 0x3d, 0x45, 0x4d, 0x55, 0x5d, 0x65, 0x6d, 0x75, 0x7d,
            0x85, 0x95, 0xa5, 0xad, 0xb5, 0xbd, 0xc5, 0xcd, 0xd5, 0xdd,
            // JMP32
            0x06, 0x16, 0x1e, 0x26, 0x2e, 0x36, 0x3e, 0x46, 0x4e, 0x56, 0x5e, 0x66, 0x6e, 0x76, 0x7e,
            0xa6, 0xae, 0xb6, 0xbe, 0xc6, 0xce, 0xd6, 0xde,
            // LD (lddw), LDX (MEM, MEMSX), ST, STX (MEM, ATOMIC)
            0x18, 0x61, 0x69, 0x71, 0x79, 0x81, 0x89, 0x91, 0x62, 0x6a, 0x72, 0x7a, 0x63, 0x6b, 0x73, 0x7b, 0xc3, 0xdb};

    /** Legacy packet loads: known, but not supported unless switched on. */
    private static final int[] LEGACY = {0x20, 0x28, 0x30, 0x40, 0x48, 0x50};

    private static final int[] ATOMIC_OPS = {0x00, 0x01, 0x40, 0x41, 0x50, 0x51, 0xa0, 0xa1, 0xe1, 0xf1};

    static IntStream rfcOpcodes() { return IntStream.of(RFC_OPCODES); }

    static IntStream otherOpcodes() {
        Set<Integer> known = new TreeSet<>();
        for (int o : RFC_OPCODES) known.add(o);
        for (int o : LEGACY) known.add(o);
        known.add(0x8d); // callx: UnsupportedInsnTest
        return IntStream.range(0, 256).filter(o -> !known.contains(o));
    }

    /** Valid instances of {@code opcode}, each with every register it reads initialised. */
    static List<Insn> instances(int opcode) {
        List<Insn> out = new ArrayList<>();
        int cls = opcode & 7, op = opcode & 0xf0;
        boolean x = (opcode & 8) != 0;
        switch (cls) {
            case 4: case 7: // ALU, ALU64
                if (op == 0x80) out.add(new Insn(opcode, 1, 0, 0, 0));
                else if (op == 0xd0) for (int w : new int[]{16, 32, 64}) out.add(new Insn(opcode, 1, 0, 0, w));
                else {
                    out.add(x ? new Insn(opcode, 1, 2, 0, 0) : new Insn(opcode, 1, 0, 0, 3));
                    if (op == 0x30 || op == 0x90) out.add(x ? new Insn(opcode, 1, 2, 1, 0) : new Insn(opcode, 1, 0, 1, 3));
                    if (op == 0xb0 && x) for (int w : cls == 7 ? new int[]{8, 16, 32} : new int[]{8, 16}) out.add(new Insn(opcode, 1, 2, w, 0));
                }
                break;
            case 5: case 6: // JMP, JMP32
                if (opcode == 0x05 || opcode == 0x06 || opcode == 0x95) out.add(new Insn(opcode, 0, 0, 0, 0));
                else if (opcode == 0x85) out.add(callHelper(HELPER_ID));
                else out.add(x ? new Insn(opcode, 1, 2, 0, 0) : new Insn(opcode, 1, 0, 0, 3));
                break;
            case 1: out.add(new Insn(opcode, 1, 10, -8, 0)); break;
            case 2: out.add(new Insn(opcode, 10, 0, -8, 7)); break;
            case 3:
                if ((opcode & 0xe0) == 0xc0) for (int a : ATOMIC_OPS) out.add(new Insn(opcode, 10, 1, -8, a));
                else out.add(new Insn(opcode, 10, 1, -8, 0));
                break;
            default: break; // lddw is tested with its two slots below
        }
        return out;
    }

    @ParameterizedTest(name = "opcode 0x{0}")
    @MethodSource("rfcOpcodes")
    void acceptsEveryRfcOpcode(int opcode) {
        List<Insn> instances = opcode == 0x18 ? List.of(lddw(1, 0x1122334455667788L)[0]) : instances(opcode);
        assertThat(instances).isNotEmpty();
        for (Insn insn : instances) {
            Program p = opcode == 0x18
                    ? prog(initAll(), lddw(1, 0x1122334455667788L), mov(0, 0), EXIT)
                    : prog(initAll(), insn, mov(0, 0), EXIT);
            accepted(p);
        }
    }

    @ParameterizedTest(name = "opcode 0x{0}")
    @MethodSource("otherOpcodes")
    void rejectsEveryOtherOpcodeByte(int opcode) {
        for (Insn insn : List.of(new Insn(opcode, 1, 0, 0, 0), new Insn(opcode, 1, 2, 0, 0), new Insn(opcode, 0, 0, 0, 0))) {
            if (opcode == 0xe5) rejected(prog(initAll(), insn, EXIT), 10, "may_goto", "not supported");
            else rejected(prog(initAll(), insn, EXIT), 10, String.format("unknown opcode 0x%02x", opcode));
        }
    }

    @Test
    void rejectsLegacyPacketLoadsAsNotSupported() {
        for (int opcode : LEGACY) {
            rejected(prog(new Insn(opcode, 0, 0, 0, 0), EXIT), 0, "legacy packet load", "not supported");
        }
    }

    @Test
    void acceptsCallLocalAndExitInOneProgramUsingEveryClass() {
        Program p = prog(initAll(), lddw(3, -1L), callLocal(2), movReg(0, 6), EXIT,
                /* subprogram at 15 */ new Insn(0x7b, 10, 1, -512, 0), new Insn(0x79, 0, 10, -512, 0),
                new Insn(0xdb, 10, 0, -512, 0xf1), new Insn(0x06, 0, 0, 0, 0), EXIT);
        assertThat(accepted(p).subprogramStarts()).containsExactly(0, 15);
    }
}
