package dev.bpf4j.object;

import dev.bpf4j.runtime.ContextRules;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.PacketContext;
import dev.bpf4j.runtime.ReturnRange;

import java.util.Set;

/**
 * {@code enum bpf_prog_type} of {@code include/uapi/linux/bpf.h}, with the kernel's numbers, and
 * bpf4j's one table of what each type means (the kernel's {@code bpf_prog_types}): the context a
 * test run hands it (and so where the packet pointers are), its ctx access rules
 * ({@link #ctxRules}), whether it may use LD ABS/IND, how the kernel's BPF_PROG_TEST_RUN runs it,
 * whether a run stands for a sampled task, the r0 range Linux checks at exit
 * ({@link #returnRange}) and the helpers it may call ({@link #allowedHelpers}, the kernel's
 * {@code get_func_proto}); {@link #applyTo} hands the verifier's part to a load. Section names map
 * to types in {@link SectionDef}, as libbpf's {@code section_defs}; ProgramTypeRulesTest checks that
 * every row a test run supports is complete.
 */
public enum ProgramType {
    UNSPEC(0),
    SOCKET_FILTER(1, Context.SK_BUFF, KernelTestRun.SKB, true),
    KPROBE(2, Context.PT_REGS, KernelTestRun.NONE, false),
    SCHED_CLS(3, Context.SK_BUFF_L2, KernelTestRun.SKB, true),
    SCHED_ACT(4, Context.SK_BUFF_L2, KernelTestRun.SKB, true),
    TRACEPOINT(5),
    XDP(6, Context.XDP_MD, KernelTestRun.XDP, false),
    PERF_EVENT(7, Context.PERF_EVENT_DATA, KernelTestRun.NONE, false),
    CGROUP_SKB(8, Context.SK_BUFF, KernelTestRun.SKB, false),
    CGROUP_SOCK(9), LWT_IN(10, Context.SK_BUFF, KernelTestRun.SKB, false), LWT_OUT(11, Context.SK_BUFF, KernelTestRun.SKB, false),
    LWT_XMIT(12, Context.SK_BUFF_L2, KernelTestRun.SKB, false),
    SOCK_OPS(13), SK_SKB(14), CGROUP_DEVICE(15), SK_MSG(16),
    RAW_TRACEPOINT(17, Context.RAW_ARGS, KernelTestRun.CTX, false),
    CGROUP_SOCK_ADDR(18), LWT_SEG6LOCAL(19), LIRC_MODE2(20), SK_REUSEPORT(21), FLOW_DISSECTOR(22), CGROUP_SYSCTL(23),
    RAW_TRACEPOINT_WRITABLE(24, Context.RAW_ARGS, KernelTestRun.NONE, false),
    CGROUP_SOCKOPT(25),
    TRACING(26, Context.RAW_ARGS, KernelTestRun.NONE, false),
    STRUCT_OPS(27), EXT(28), LSM(29), SK_LOOKUP(30),
    SYSCALL(31, Context.SYSCALL_USER, KernelTestRun.CTX, false),
    NETFILTER(32);

    /** The context a bpf4j test run builds for a type ({@code api.ProgramContexts}); NONE: bpf4j cannot test-run it. */
    public enum Context {
        NONE,
        /** {@code struct xdp_md} over the packet. */
        XDP_MD,
        /** {@code struct __sk_buff}, the packet starting at the network header (socket filter, cgroup_skb, lwt in/out). */
        SK_BUFF,
        /** {@code struct __sk_buff}, the packet starting at the Ethernet header (tc, lwt_xmit). */
        SK_BUFF_L2,
        /** {@code struct pt_regs} (x86-64). */
        PT_REGS,
        /** {@code struct bpf_perf_event_data}: pt_regs, sample_period, addr. */
        PERF_EVENT_DATA,
        /** An array of u64 arguments (raw tracepoints, fentry/fexit). */
        RAW_ARGS,
        /** A user-supplied block the program may write back (BPF_PROG_TYPE_SYSCALL). */
        SYSCALL_USER;

        /** The run hands the context back as ctx_out because the program may write it (a syscall program's block). */
        public boolean writtenBack() { return this == SYSCALL_USER; }
    }

    /** How the kernel's BPF_PROG_TEST_RUN runs the type, as bpf4j drives it (bpf-kernel). */
    public enum KernelTestRun {
        /** No test run bpf4j drives (kprobe and perf_event have none in the kernel). */
        NONE,
        /** data_in/data_out, ctx {@code struct xdp_md}. */
        XDP,
        /** data_in/data_out, ctx in and out as {@code struct __sk_buff}. */
        SKB,
        /** ctx_in only (raw_tp, syscall). */
        CTX
    }

    /** The kernel's {@code BPF_PROG_TYPE_*} value. */
    public final int id;
    private final Context context;
    private final KernelTestRun kernelTestRun;
    private final boolean legacyPacketLoads;

    ProgramType(int id) { this(id, Context.NONE, KernelTestRun.NONE, false); }

    ProgramType(int id, Context context, KernelTestRun kernelTestRun, boolean legacyPacketLoads) {
        this.id = id;
        this.context = context;
        this.kernelTestRun = kernelTestRun;
        this.legacyPacketLoads = legacyPacketLoads;
    }

    public Context context() { return context; }

    public KernelTestRun kernelTestRun() { return kernelTestRun; }

    /**
     * A run stands for the thread a sample interrupted, not the caller: the task helpers read the
     * run's {@code CurrentTask} (so the loader binds their Java bodies, not native forms).
     */
    public boolean runsForSampledTask() { return this == PERF_EVENT; }

    /**
     * The kernel's {@code check_return_code} (kernel/bpf/verifier.c): the r0 a program of this type,
     * loaded with {@code attach} as its expected attach type, must return at exit, or null where
     * Linux checks nothing (XDP, tc, socket filters, kprobes, ...). The verifier refuses any other r0
     * with Linux's message ({@link #applyTo}).
     */
    public ReturnRange returnRange(AttachType attach) {
        return switch (this) {
            case CGROUP_SKB -> attach == AttachType.CGROUP_INET_EGRESS ? new ReturnRange(0, 3) : new ReturnRange(0, 1);
            case CGROUP_SOCK_ADDR -> switch (attach) {
                case CGROUP_UDP4_RECVMSG, CGROUP_UDP6_RECVMSG, CGROUP_INET4_GETPEERNAME, CGROUP_INET6_GETPEERNAME,
                        CGROUP_INET4_GETSOCKNAME, CGROUP_INET6_GETSOCKNAME -> new ReturnRange(1, 1);
                case CGROUP_INET4_BIND, CGROUP_INET6_BIND -> new ReturnRange(0, 3);
                default -> new ReturnRange(0, 1);
            };
            case CGROUP_SOCK, SOCK_OPS, CGROUP_DEVICE, CGROUP_SYSCTL, CGROUP_SOCKOPT -> new ReturnRange(0, 1);
            case RAW_TRACEPOINT -> attach == AttachType.NONE ? null : new ReturnRange(0, 0);
            case TRACING -> switch (attach) {
                case TRACE_FENTRY, TRACE_FEXIT -> new ReturnRange(0, 0);
                case TRACE_ITER -> new ReturnRange(0, 1);
                default -> null; // tp_btf, fmod_ret: anything
            };
            case SK_LOOKUP -> new ReturnRange(0, 1); // SK_DROP, SK_PASS
            case NETFILTER -> new ReturnRange(0, 1); // NF_DROP, NF_ACCEPT
            default -> null;
        };
    }

    /** The kernel's may_access_skb: LD ABS/IND only in socket filters and tc programs. */
    public boolean legacyPacketLoads() { return legacyPacketLoads; }

    /**
     * The helper ids a program of this type may call on Linux 6.18 (its {@code get_func_proto}, privileged;
     * {@code program-type-helpers.txt}), or null where bpf4j does not check: the types it cannot run, and
     * tracing programs, whose list depends on an attach target.
     */
    public Set<Integer> allowedHelpers() { return FuncProtos.of(this); }

    /**
     * {@code base} with the verifier's rules of a program of this type loaded with {@code attach} as its
     * expected attach type: ctx access rules, exit range, allowed helpers.
     */
    public LoadOptions applyTo(LoadOptions base, AttachType attach) {
        return base.withCtxRules(ctxRules()).withReturnRange(returnRange(attach)).withAllowedHelpers(allowedHelpers());
    }

    /** The kernel's is_valid_access of the type (which ctx offsets, sizes and writes it allows); null where bpf4j has none. */
    public ContextRules ctxRules() {
        return switch (this) {
            case SOCKET_FILTER -> ContextRules.SOCKET_FILTER;
            case SCHED_CLS, SCHED_ACT -> ContextRules.TC;
            case CGROUP_SKB -> ContextRules.CGROUP_SKB;
            case LWT_IN, LWT_OUT, LWT_XMIT -> ContextRules.LWT;
            case XDP -> ContextRules.XDP;
            case KPROBE -> ContextRules.KPROBE;
            case PERF_EVENT -> ContextRules.PERF_EVENT;
            case RAW_TRACEPOINT -> ContextRules.RAW_TRACEPOINT;
            case SYSCALL -> ContextRules.SYSCALL;
            default -> null;
        };
    }

    /** Where the test-run ctx holds the packet pointers, for engines and the verifier that prove packet accesses; null: no packet. */
    public PacketContext packetContext() {
        return switch (context) {
            case XDP_MD -> PacketContext.XDP_MD;
            case SK_BUFF, SK_BUFF_L2 -> PacketContext.SK_BUFF;
            default -> null;
        };
    }
}
