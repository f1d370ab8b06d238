package dev.bpf4j.object;

import dev.bpf4j.object.ProgramType.Context;
import dev.bpf4j.object.ProgramType.KernelTestRun;
import dev.bpf4j.runtime.ReturnRange;
import dev.bpf4j.runtime.PacketContext;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ProgramType} is the one table per program type: every row bpf4j can test-run must say all
 * of it (context and packet, ctx rules, LD ABS/IND, kernel test-run form, section names, exit range),
 * and a row it cannot run must claim nothing. A new row fails here until each column is decided.
 */
class ProgramTypeRulesTest {
    /** Types bpf4j runs without kernel ctx access rules (their verifier policy checks ctx accesses as plain memory). */
    private static final Set<ProgramType> NO_CTX_RULES = EnumSet.of(ProgramType.RAW_TRACEPOINT_WRITABLE, ProgramType.TRACING);

    @Test
    void everyRunnableRowIsComplete() {
        for (ProgramType t : ProgramType.values()) {
            if (t.context() == Context.NONE) continue;
            String row = t.name();
            assertThat(SectionDef.all()).as(row + ": a section name").anyMatch(d -> d.type() == t);
            assertThat(t.ctxRules() != null).as(row + ": ctx rules").isEqualTo(!NO_CTX_RULES.contains(t));
            PacketContext packet = switch (t.context()) {
                case XDP_MD -> PacketContext.XDP_MD;
                case SK_BUFF, SK_BUFF_L2 -> PacketContext.SK_BUFF;
                default -> null;
            };
            assertThat(t.packetContext()).as(row + ": packet pointers").isEqualTo(packet);
            Set<KernelTestRun> forms = switch (t.context()) {
                case XDP_MD -> EnumSet.of(KernelTestRun.XDP);
                case SK_BUFF, SK_BUFF_L2 -> EnumSet.of(KernelTestRun.SKB);
                case PT_REGS, PERF_EVENT_DATA -> EnumSet.of(KernelTestRun.NONE); // no BPF_PROG_TEST_RUN in Linux
                default -> EnumSet.of(KernelTestRun.CTX, KernelTestRun.NONE);
            };
            assertThat(forms).as(row + ": kernel test-run form").contains(t.kernelTestRun());
            if (t.legacyPacketLoads()) assertThat(t.packetContext()).as(row + ": LD ABS/IND need an skb").isEqualTo(PacketContext.SK_BUFF);
        }
    }

    @Test
    void rowsBpf4jCannotRunClaimNothing() {
        for (ProgramType t : ProgramType.values()) {
            if (t.context() != Context.NONE) continue;
            assertThat(t.ctxRules()).as(t.name()).isNull();
            assertThat(t.kernelTestRun()).as(t.name()).isEqualTo(KernelTestRun.NONE);
            assertThat(t.legacyPacketLoads()).as(t.name()).isFalse();
            assertThat(t.packetContext()).as(t.name()).isNull();
            assertThat(t.runsForSampledTask()).as(t.name()).isFalse();
        }
    }

    @Test
    void legacyPacketLoadsAsLinuxMayAccessSkb() {
        assertThat(EnumSet.allOf(ProgramType.class).stream().filter(ProgramType::legacyPacketLoads))
                .containsExactlyInAnyOrder(ProgramType.SOCKET_FILTER, ProgramType.SCHED_CLS, ProgramType.SCHED_ACT);
    }

    @Test
    void onlyAContextTheProgramMayWriteComesBack() {
        for (Context c : Context.values()) assertThat(c.writtenBack()).as(c.name()).isEqualTo(c == Context.SYSCALL_USER);
        assertThat(EnumSet.allOf(ProgramType.class).stream().filter(ProgramType::runsForSampledTask)).containsExactly(ProgramType.PERF_EVENT);
    }

    /** kernel/bpf/verifier.c check_return_code, for the types and attach types bpf4j loads from sections. */
    @Test
    void exitRangesAsLinuxCheckReturnCode() {
        assertThat(ProgramType.XDP.returnRange(AttachType.NONE)).isNull();
        assertThat(ProgramType.SCHED_CLS.returnRange(AttachType.NONE)).isNull();
        assertThat(ProgramType.SOCKET_FILTER.returnRange(AttachType.NONE)).isNull();
        assertThat(ProgramType.KPROBE.returnRange(AttachType.NONE)).isNull();
        assertThat(ProgramType.PERF_EVENT.returnRange(AttachType.NONE)).isNull();
        assertThat(ProgramType.LWT_IN.returnRange(AttachType.NONE)).isNull();
        assertThat(ProgramType.SYSCALL.returnRange(AttachType.NONE)).isNull();
        assertThat(ProgramType.RAW_TRACEPOINT.returnRange(AttachType.NONE)).isNull();
        assertThat(ProgramType.CGROUP_SKB.returnRange(AttachType.CGROUP_INET_INGRESS)).isEqualTo(new ReturnRange(0, 1));
        assertThat(ProgramType.CGROUP_SKB.returnRange(AttachType.CGROUP_INET_EGRESS)).isEqualTo(new ReturnRange(0, 3));
        assertThat(ProgramType.TRACING.returnRange(AttachType.TRACE_FENTRY)).isEqualTo(new ReturnRange(0, 0));
        assertThat(ProgramType.TRACING.returnRange(AttachType.TRACE_FEXIT)).isEqualTo(new ReturnRange(0, 0));
        assertThat(ProgramType.TRACING.returnRange(AttachType.TRACE_RAW_TP)).isNull();
        assertThat(ProgramType.TRACING.returnRange(AttachType.MODIFY_RETURN)).isNull();
        assertThat(ProgramType.TRACING.returnRange(AttachType.TRACE_ITER)).isEqualTo(new ReturnRange(0, 1));
        assertThat(ProgramType.CGROUP_SOCK_ADDR.returnRange(AttachType.CGROUP_INET4_BIND)).isEqualTo(new ReturnRange(0, 3));
        assertThat(ProgramType.CGROUP_SOCK_ADDR.returnRange(AttachType.CGROUP_UDP4_RECVMSG)).isEqualTo(new ReturnRange(1, 1));
        assertThat(ProgramType.CGROUP_SOCK_ADDR.returnRange(AttachType.CGROUP_INET4_CONNECT)).isEqualTo(new ReturnRange(0, 1));
        // every section's type and attach type has an answer (a range or null), none throws
        for (SectionDef d : SectionDef.all()) {
            ReturnRange r = d.type().returnRange(d.attachType());
            if (r != null) assertThat(r.min()).as(d.pattern()).isLessThanOrEqualTo(r.max());
        }
    }
}
