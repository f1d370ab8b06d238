package dev.bpf4j.jit.probe;

import dev.bpf4j.jit.X86Listing;
import dev.bpf4j.jit.X86Listing.Insn;
import dev.bpf4j.unwind.CodeRegion;
import dev.bpf4j.unwind.SnapshotMemoryView;
import dev.bpf4j.unwind.StackTrace;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * For every instruction of a live trampoline, the register set a sampler would see there unwinds
 * through the code map's rows to exactly the chain the hit's pt_regs gives (traced function,
 * parent, ... up to the JVM). The instruction boundaries come from GNU objdump; rsp and rbp at each
 * one are replayed from the instructions that move them, starting from the hit's real stack. Before
 * the ftrace frames are in place their slots are blanked, so no rule can lean on them early. The
 * out-of-line tails of the per-CPU hit count after the {@code ret} run with the registers of the count.
 */
class TrampolineRowsTest {
    @Test
    void everyInstructionUnwindsToTheTracedFunctionAndItsCallers() {
        ProbeUnwindTest.captureInLeaf((hit, capture) -> {
            CodeRegion tramp = NativeProbes.probe(TestLib.address("leaf")).orElseThrow().trampolineRegion();
            assertThat(replay(hit, tramp, List.of("leaf", "mid", "top"), "bpf_trampoline_leaf")).as("ends with ret").isTrue();
        });
    }

    /**
     * The same for a displaced entry, patched with a {@code jmp}: the trampoline's first
     * instruction pushes site + 5 (before it the walk goes straight to the parent), and the
     * replay ends where the copy of the displaced instructions begins.
     */
    @Test
    void everyInstructionOfAJmpEnteredTrampolineUnwinds() {
        AnyEntryLib lib = AnyEntryLib.O2FP;
        long leaf = lib.address("ae_leaf");
        ProbeUnwindTest.captureIn(leaf, "ae_leaf", () -> assertThat(RootCall.get().call(lib.address("ae_top"), 2)).isEqualTo(14 + 17), (hit, capture) -> {
            NativeProbe probe = NativeProbes.probe(leaf).orElseThrow();
            CodeRegion tramp = probe.trampolineRegion();
            byte[] site = probe.site().current();
            assertThat(site[0]).as("the displaced site is patched with jmp rel32").isEqualTo((byte) 0xe9);
            assertThat(probe.site().site() + 5 + (site[1] & 0xff | (site[2] & 0xff) << 8 | (site[3] & 0xff) << 16 | site[4] << 24))
                    .isEqualTo(tramp.start());
            assertThat(replay(hit, tramp, List.of("ae_leaf", "ae_mid", "ae_top"), "bpf_trampoline_ae_leaf")).as("ends in the copy").isFalse();
        });
    }

    /**
     * Replays the trampoline instruction by instruction from the hit's stack and unwinds at each:
     * returns whether it ended with a {@code ret} (else at the {@code lea} before the displaced copy).
     */
    private static boolean replay(ProbeUnwindTest.Hit hit, CodeRegion tramp, List<String> chain, String trampName) {
        List<Insn> insns = X86Listing.disassemble(ProcessText.read(tramp.start(), (int) tramp.size()));
        SnapshotMemoryView stack = hit.stack();
        long f2 = stack.readLong(hit.rbp());                     // the program's caller frame
        long s = hit.reg(PtRegsLayout.SP) - 8, pbp = hit.reg(PtRegsLayout.BP);
        StackTrace reference = ProbeUnwindTest.UNWINDER.unwind(hit.reg(PtRegsLayout.IP), s + 8, pbp, stack);
        assertThat(ProbeUnwindTest.names(reference).subList(0, 3)).containsExactlyElementsOf(chain);
        SnapshotMemoryView early = blanked(stack, f2, TrampolineEmitter.PT);
        boolean jmpEntered = insns.get(0).text().startsWith("push") && insns.get(0).text().contains("(%rip)");
        long rsp = jmpEntered ? s + 8 : s, rbp = pbp;
        boolean framesBuilt = false;
        int checked = 0;
        boolean returned = false;
        long[] counting = null;                                     // rsp, rbp where the hit is counted: the tails run there
        for (Insn i : insns) {
            long ip = tramp.start() + i.offset();
            if (returned) {                                         // PerCpuHits' tails, up to the int3 before their descriptors
                if (i.text().startsWith("int3")) break;
                assertThat(counting).as("tails without a per-CPU count").isNotNull();
                StackTrace t = ProbeUnwindTest.UNWINDER.unwind(ip, counting[0], counting[1], early);
                assertThat(t.ips().subList(2, t.ips().size())).as("+%d %s", i.offset(), i.text())
                        .isEqualTo(reference.ips().subList(1, reference.ips().size()));
                checked++;
                continue;
            }
            if (i.text().equals("lea    0x8(%rsp),%rsp")) break;          // the displaced copy follows: the function's own rows
            if (i.text().contains("%fs:") && counting == null) counting = new long[] {rsp, rbp};
            StackTrace t = ProbeUnwindTest.UNWINDER.unwind(ip, rsp, rbp, framesBuilt ? stack : early);
            assertThat(ProbeUnwindTest.names(t).get(0)).isEqualTo(trampName);
            if (i.offset() == 0 && jmpEntered) {                    // site + 5 not pushed yet: the parent is next
                assertThat(t.ips().subList(1, t.ips().size())).as("+0 %s", i.text())
                        .isEqualTo(reference.ips().subList(1, reference.ips().size()));
            } else {
                assertThat(t.ips().subList(2, t.ips().size())).as("+%d %s", i.offset(), i.text())
                        .isEqualTo(reference.ips().subList(1, reference.ips().size()));
                assertThat(ProbeUnwindTest.names(t).get(1)).isEqualTo(chain.get(0));
            }
            checked++;
            String x = i.text();
            if (x.startsWith("push")) rsp -= 8;
            else if (x.startsWith("popf")) rsp += 8;
            else if (x.equals("mov    %rsp,%rbp")) { rbp = rsp; framesBuilt |= rsp == f2; }
            else if (x.startsWith("sub ") && x.endsWith(",%rsp")) rsp -= Long.decode(x.substring(x.indexOf('$') + 1, x.indexOf(',')));
            else if (x.startsWith("and ") && x.endsWith(",%rsp")) rsp &= Long.decode(x.substring(x.indexOf('$') + 1, x.indexOf(',')).replace("0xfffffffffffffff0", "-16"));
            else if (x.startsWith("mov ") && x.endsWith("(%rbp),%rbp")) rbp = stack.readLong(rbp + Long.decode(x.substring(x.indexOf(' ') + 1, x.indexOf('(')).trim()));
            else if (x.startsWith("leave")) { rsp = rbp + 8; rbp = pbp; }
            else if (x.startsWith("ret")) returned = true;
            else assertThat(x).as("an instruction the replay does not model moves rsp or rbp").doesNotContain(",%rsp").doesNotContain(",%rbp");
        }
        assertThat(framesBuilt).isTrue();
        assertThat(checked).isGreaterThan(40);
        return returned;
    }

    /** A copy of the stack with the ftrace frame slots [f2, f2 + size) zeroed. */
    private static SnapshotMemoryView blanked(SnapshotMemoryView s, long f2, int size) {
        byte[] bytes = new byte[s.size()];
        for (int off = 0; off + 8 <= bytes.length; off += 8) {
            long a = s.base() + off;
            long v = a >= f2 && a < f2 + size ? 0 : s.readLong(a);
            for (int b = 0; b < 8; b++) bytes[off + b] = (byte) (v >>> (8 * b));
        }
        return new SnapshotMemoryView(s.base(), bytes);
    }
}
