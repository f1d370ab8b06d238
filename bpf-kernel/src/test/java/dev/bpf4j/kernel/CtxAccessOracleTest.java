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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * bpf4j's ctx access rules ({@code verifier.CtxAccess}) against Linux's {@code is_valid_access} of each program
 * type: every load, sign-extending load, store, immediate store and atomic add of every size at every offset of
 * the context (and a little past it) is loaded into Linux (BPF_PROG_LOAD, privileged) and through bpf4j's
 * verifier; the verdicts must be the same. Skipped where bpf() is refused.
 */
class CtxAccessOracleTest {
    @BeforeEach void needsBpf() { KernelAssumptions.assumeBpf(); }

    /** A program type, its enum bpf_prog_type, load flags and the ctx offsets worth sweeping. */
    enum Type {
        SOCKET_FILTER(ContextRules.SOCKET_FILTER, 1, 0, null, 200),
        SCHED_CLS(ContextRules.TC, 3, 0, PacketContext.SK_BUFF, 200),
        CGROUP_SKB(ContextRules.CGROUP_SKB, 8, 0, PacketContext.SK_BUFF, 200),
        LWT_IN(ContextRules.LWT, 10, 0, PacketContext.SK_BUFF, 200),
        XDP(ContextRules.XDP, 6, 0, PacketContext.XDP_MD, 32),
        KPROBE(ContextRules.KPROBE, 2, 0, null, 176),
        PERF_EVENT(ContextRules.PERF_EVENT, 7, 0, null, 192),
        RAW_TRACEPOINT(ContextRules.RAW_TRACEPOINT, 17, 0, null, 104),
        SYSCALL(ContextRules.SYSCALL, 31, ProgLoadRequest.BPF_F_SLEEPABLE, null, 24);

        final ContextRules rules;
        final int progType, flags, maxOff;
        final PacketContext packet;

        Type(ContextRules rules, int progType, int flags, PacketContext packet, int maxOff) {
            this.rules = rules;
            this.progType = progType;
            this.flags = flags;
            this.packet = packet;
            this.maxOff = maxOff;
        }
    }

    private static final int[] SIZES = {Opcodes.B, Opcodes.H, Opcodes.W, Opcodes.DW};

    @ParameterizedTest @EnumSource(Type.class)
    void bpf4jAllowsTheCtxAccessesLinuxAllows(Type type) {
        LoadOptions options = LoadOptions.defaults().withEntry(EntryRegisters.CONTEXT).withPacketContext(type.packet).withCtxRules(type.rules);
        List<String> differences = new ArrayList<>();
        int compared = 0, allowed = 0;
        for (int off = -4; off <= type.maxOff; off++) {
            for (int size : SIZES) {
                for (String kind : new String[] {"ldx", "ldxsx", "stx", "st", "atomic"}) {
                    Insn[] p = program(kind, size, off);
                    if (p == null) continue;
                    boolean linux = linuxAccepts(type, p);
                    String ours = bpf4jVerdict(p, options);
                    compared++;
                    if (linux) allowed++;
                    if (linux != ours.isEmpty()) {
                        differences.add(kind + " size " + Opcodes.sizeBytes(size | Opcodes.LDX) + " off " + off + ": Linux "
                                + (linux ? "accepts" : "rejects") + ", bpf4j " + (ours.isEmpty() ? "accepts" : "rejects (" + ours + ")"));
                    }
                }
            }
        }
        System.out.printf("%s: %d ctx accesses compared, Linux allows %d, differences %d%n", type, compared, allowed, differences.size());
        differences.stream().limit(40).forEach(d -> System.out.println("  " + d));
        assertThat(differences).as(type + ": ctx accesses where bpf4j and Linux disagree").isEmpty();
    }

    /** The access, then r0 = 0 and exit; null where the encoding does not exist (sign-extending dw, atomics of 1 or 2 bytes). */
    static Insn[] program(String kind, int size, int off) {
        Insn access;
        switch (kind) {
            case "ldx": access = new Insn(Opcodes.LDX | Opcodes.MEM | size, 0, 1, off, 0); break;
            case "ldxsx":
                if (size == Opcodes.DW) return null;
                access = new Insn(Opcodes.LDX | Opcodes.MEMSX | size, 0, 1, off, 0);
                break;
            case "stx": access = new Insn(Opcodes.STX | Opcodes.MEM | size, 1, 2, off, 0); break;
            case "st": access = new Insn(Opcodes.ST | Opcodes.MEM | size, 1, 0, off, 0); break;
            case "atomic":
                if (size != Opcodes.W && size != Opcodes.DW) return null;
                access = new Insn(Opcodes.STX | Opcodes.ATOMIC | size, 1, 2, off, Opcodes.ADD);
                break;
            default: throw new IllegalArgumentException(kind);
        }
        return new Insn[] {
                new Insn(Opcodes.ALU64 | Opcodes.MOV | Opcodes.K, 2, 0, 0, 0), // mov r2, 0
                access,
                new Insn(Opcodes.ALU64 | Opcodes.MOV | Opcodes.K, 0, 0, 0, 0), // mov r0, 0
                new Insn(Opcodes.JMP | Opcodes.EXIT, 0, 0, 0, 0)};
    }

    private static boolean linuxAccepts(Type type, Insn[] p) {
        try {
            int fd = BpfSyscall.progLoad(new ProgLoadRequest(type.progType, 0, Insn.encodeAll(p), "GPL", "ctx_oracle", type.flags, 0));
            BpfSyscall.close(fd);
            return true;
        } catch (KernelBpfException e) {
            return false;
        }
    }

    private static String bpf4jVerdict(Insn[] p, LoadOptions options) {
        try {
            Validator.validate(Program.of("ctx_oracle", p), options);
            return "";
        } catch (VerifierException e) {
            return e.pc() + ": " + e.reason();
        }
    }
}
