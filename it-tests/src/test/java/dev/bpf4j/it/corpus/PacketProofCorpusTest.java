package dev.bpf4j.it.corpus;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.BpfProgram;
import dev.bpf4j.api.Engines;
import dev.bpf4j.api.ObjectLoadOptions;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.jit.compiler.CompiledProgram;
import dev.bpf4j.jit.runtime.JitLoader;
import dev.bpf4j.object.ProgramType;
import dev.bpf4j.runtime.PacketContext;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JIT's proofs of packet accesses in clang-compiled XDP and tc programs of the corpus (RegionProof's
 * ctx form: data/data_end loaded from {@code struct xdp_md} or {@code __sk_buff}): which loads and
 * stores the guarded copy leaves unchecked. That the runs agree with the interpreter (and the
 * interpreter with the kernel) is {@link CorpusDifferentialTest}'s and {@link KernelCorpusTest}'s job;
 * this test also compares xdp_proto_count directly.
 */
class PacketProofCorpusTest {
    private static final JitLoader JIT = new JitLoader();

    private static CompiledProgram compiled(BpfProgram p) { return JIT.compile(p.program(), p.loadOptions()); }

    @Test
    void xdpProtoCountReadsItsEtherTypeWithoutChecks() {
        CorpusCase c = Corpus.all().stream().filter(k -> k.program().equals("xdp_proto_count")).findFirst().orElseThrow();
        try (BpfObject obj = BpfObject.open(c.path()).load(ObjectLoadOptions.engine(Engines.byName("jit")))) {
            BpfProgram p = obj.program("xdp_proto_count");
            assertThat(p.loadOptions().packetContext()).isEqualTo(PacketContext.XDP_MD);
            Insn[] insns = p.program().toArray();
            // r6 = ctx->data_end; r7 = ctx->data; if r7 + 14 > r6 ...; h_proto's two bytes at r7 + 12, r7 + 13
            assertThat(describe(insns[8])).isEqualTo("ldxb r2 = [r7 + 12]");
            assertThat(describe(insns[9])).isEqualTo("ldxb r1 = [r7 + 13]");
            CompiledProgram code = compiled(p);
            assertThat(code.proofs().guardedOffset()).as("a guarded copy").isPositive();
            assertThat(code.proofs().guardedPcs()).as("ctx->data_end, ctx->data, both bytes of h_proto").containsExactly(1, 2, 8, 9);
            assertThat(code.proofs().uncheckedPcs()).as("the checked body keeps them").doesNotContain(1, 2, 8, 9);
            assertThat(code.proofs().guardedCombinedPcs()).as("h_proto read as one 2-byte load").containsExactly(9);
        }
        assertThat(CorpusDifferentialTest.outcome(c, Engines.byName("jit"))).isEqualTo(CorpusDifferentialTest.outcome(c, Engines.byName("interp")));
    }

    /**
     * Every XDP and tc program of the corpus: its accesses, and how many the guarded copy leaves unchecked. A
     * program that calls a helper that may move the packet gets no packet proofs by design (the JIT's proofs
     * assume the entry's bounds): those are listed, not counted.
     */
    @Test
    void packetProgramsOfTheCorpusGetProofs() {
        int programs = 0, withCopy = 0, accesses = 0, proven = 0;
        for (CorpusCase c : Corpus.all().stream().filter(distinctPrograms()).toList()) {
            try (BpfObject obj = BpfObject.open(c.path()).load(ObjectLoadOptions.engine(Engines.byName("interp")))) {
                BpfProgram p = obj.program(c.program());
                if (p.type() != ProgramType.XDP && p.type() != ProgramType.SCHED_CLS) continue;
                CompiledProgram code = compiled(p);
                Insn[] insns = p.program().toArray();
                if (Arrays.stream(insns).anyMatch(PacketProofCorpusTest::movesPacket)) {
                    System.out.printf("packet proofs: %-34s %-9s calls a helper that moves the packet: none by design%n", c, p.type());
                    continue;
                }
                long n = Arrays.stream(insns).filter(PacketProofCorpusTest::isAccess).count();
                long more = Arrays.stream(code.proofs().guardedPcs()).filter(pc -> Arrays.stream(code.proofs().uncheckedPcs()).noneMatch(u -> u == pc)).count();
                System.out.printf("packet proofs: %-34s %-9s %3d accesses, %3d unchecked in the guarded copy (%d in the body)%n",
                        c, p.type(), n, more, code.proofs().uncheckedPcs().length);
                programs++;
                accesses += (int) n;
                proven += (int) more;
                if (code.proofs().guardedOffset() >= 0) withCopy++;
            }
        }
        System.out.printf("packet proofs: %d programs, %d with a guarded copy, %d of %d accesses unchecked there%n", programs, withCopy, proven, accesses);
        assertThat(programs).isGreaterThanOrEqualTo(10);
        assertThat(withCopy).as("programs with a guarded copy").isGreaterThanOrEqualTo(programs * 3 / 4);
        assertThat(proven).as("accesses proven").isGreaterThan(accesses / 4);
    }

    private static java.util.function.Predicate<CorpusCase> distinctPrograms() {
        java.util.Set<String> seen = new java.util.HashSet<>();
        return k -> seen.add(k.toString());
    }

    private static boolean movesPacket(Insn i) {
        return i.cls() == Opcodes.JMP && Opcodes.op(i.opcode()) == Opcodes.CALL && i.src() == 0
                && dev.bpf4j.runtime.HelperIds.changesPacketData(i.imm());
    }

    private static boolean isAccess(Insn i) {
        int cls = i.cls(), mode = Opcodes.mode(i.opcode());
        return (cls == Opcodes.LDX && (mode == Opcodes.MEM || mode == Opcodes.MEMSX) && i.src() != 10)
                || ((cls == Opcodes.ST || cls == Opcodes.STX) && mode == Opcodes.MEM && i.dst() != 10);
    }

    private static String describe(Insn i) {
        String size = List.of("w", "h", "b", "dw").get(Opcodes.size(i.opcode()) >> 3);
        return "ldx" + size + " r" + i.dst() + " = [r" + i.src() + " + " + i.off() + "]";
    }
}
