package dev.bpf4j.kernel;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.ContextRules;
import dev.bpf4j.runtime.EntryRegisters;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.PacketContext;
import dev.bpf4j.verifier.Validator;
import dev.bpf4j.verifier.VerifierException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Packet accesses at a fixed offset against Linux's {@code check_packet_access} in a tc program: {@code data + N}
 * compared with {@code data_end} by each unsigned condition, either operand first, the access (load, store, atomic
 * add) on either side of the branch at offsets around N. bpf4j must accept exactly what Linux accepts. Skipped
 * where bpf() is refused.
 */
class PacketAccessOracleTest {
    @BeforeEach void needsBpf() { KernelAssumptions.assumeBpf(); }

    private static final LoadOptions TC = LoadOptions.defaults().withEntry(EntryRegisters.CONTEXT)
            .withPacketContext(PacketContext.SK_BUFF).withCtxRules(ContextRules.TC);
    private static final int[] CONDITIONS = {Opcodes.JGT, Opcodes.JGE, Opcodes.JLT, Opcodes.JLE};
    private static final int[] SIZES = {Opcodes.B, Opcodes.H, Opcodes.W, Opcodes.DW};

    @Test void bpf4jProvesThePacketBytesLinuxProves() {
        List<String> differences = new ArrayList<>();
        int compared = 0, allowed = 0;
        for (int n : new int[] {0, 1, 4, 8, 14}) {
            for (int cond : CONDITIONS) {
                for (boolean pktFirst : new boolean[] {true, false}) {
                    for (boolean onTaken : new boolean[] {true, false}) {
                        for (int off = -1; off <= n + 1; off++) {
                            for (int size : SIZES) {
                                for (String kind : new String[] {"ldx", "st", "atomic"}) {
                                    if (kind.equals("atomic") && size != Opcodes.DW) continue;
                                    Insn[] p = program(n, cond, pktFirst, onTaken, kind, size, off);
                                    boolean linux = linuxAccepts(p);
                                    String ours = bpf4jVerdict(p);
                                    compared++;
                                    if (linux) allowed++;
                                    if (linux != ours.isEmpty()) {
                                        differences.add(String.format("data+%d %s data_end (%s), access on the %s side: %s size %d off %d: Linux %s, bpf4j %s",
                                                n, Integer.toHexString(cond), pktFirst ? "pkt first" : "end first", onTaken ? "taken" : "fallthrough",
                                                kind, Opcodes.sizeBytes(size | Opcodes.LDX), off, linux ? "accepts" : "rejects",
                                                ours.isEmpty() ? "accepts" : "rejects (" + ours + ")"));
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        System.out.printf("packet accesses: %d compared, Linux allows %d, differences %d%n", compared, allowed, differences.size());
        differences.stream().limit(40).forEach(d -> System.out.println("  " + d));
        assertThat(differences).isEmpty();
    }

    private static Insn[] program(int n, int cond, boolean pktFirst, boolean onTaken, String kind, int size, int off) {
        Insn access = switch (kind) {
            case "ldx" -> new Insn(Opcodes.LDX | Opcodes.MEM | size, 5, 2, off, 0);
            case "st" -> new Insn(Opcodes.ST | Opcodes.MEM | size, 2, 0, off, 7);
            default -> new Insn(Opcodes.STX | Opcodes.ATOMIC | size, 2, 0, off, Opcodes.ADD);
        };
        Insn jump = pktFirst ? new Insn(Opcodes.JMP | cond | Opcodes.X, 4, 3, 2, 0) : new Insn(Opcodes.JMP | cond | Opcodes.X, 3, 4, 2, 0);
        Insn exit = new Insn(Opcodes.JMP | Opcodes.EXIT, 0, 0, 0, 0);
        Insn nop = new Insn(Opcodes.ALU64 | Opcodes.MOV | Opcodes.K, 6, 0, 0, 0);
        return new Insn[] {
                new Insn(Opcodes.ALU64 | Opcodes.MOV | Opcodes.K, 0, 0, 0, 0),   // r0 = 0
                new Insn(Opcodes.LDX | Opcodes.MEM | Opcodes.W, 2, 1, 76, 0),     // r2 = data
                new Insn(Opcodes.LDX | Opcodes.MEM | Opcodes.W, 3, 1, 80, 0),     // r3 = data_end
                new Insn(Opcodes.ALU64 | Opcodes.MOV | Opcodes.X, 4, 2, 0, 0),   // r4 = r2
                new Insn(Opcodes.ALU64 | Opcodes.ADD | Opcodes.K, 4, 0, 0, n),   // r4 += n
                new Insn(Opcodes.ALU64 | Opcodes.MOV | Opcodes.K, 0, 0, 0, 0),   // (atomics need r0 = 0 in src)
                jump,                                                             // if ... goto +2
                onTaken ? nop : access,
                exit,
                onTaken ? access : nop,
                exit};
    }

    private static boolean linuxAccepts(Insn[] p) {
        try {
            BpfSyscall.close(BpfSyscall.progLoad(ProgLoadRequest.of(3, "pkt_oracle", Insn.encodeAll(p))));
            return true;
        } catch (KernelBpfException e) {
            return false;
        }
    }

    private static String bpf4jVerdict(Insn[] p) {
        try {
            Validator.validate(Program.of("pkt_oracle", p), TC);
            return "";
        } catch (VerifierException e) {
            return e.pc() + ": " + e.reason();
        }
    }
}
