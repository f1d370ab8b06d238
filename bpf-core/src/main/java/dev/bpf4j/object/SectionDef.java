package dev.bpf4j.object;

import java.util.List;
import java.util.Optional;

import static dev.bpf4j.object.AttachType.*;

/**
 * How an ELF section name selects a program type, following libbpf's {@code section_defs} table
 * and its matching rules: a pattern ending in {@code +} matches the bare name or the name followed
 * by {@code /extras}; one ending in {@code /} needs the extras; anything else must match exactly.
 * The first matching row wins, so more specific rows come first.
 */
public record SectionDef(String pattern, ProgramType type, AttachType attachType, boolean sleepable) {

    private static SectionDef def(String pattern, ProgramType type, AttachType attach) {
        return new SectionDef(pattern, type, attach, false);
    }

    private static SectionDef sleepable(String pattern, ProgramType type, AttachType attach) {
        return new SectionDef(pattern, type, attach, true);
    }

    private static final List<SectionDef> DEFS = List.of(
            def("socket", ProgramType.SOCKET_FILTER, NONE),
            def("sk_reuseport/migrate", ProgramType.SK_REUSEPORT, SK_REUSEPORT_SELECT_OR_MIGRATE),
            def("sk_reuseport", ProgramType.SK_REUSEPORT, SK_REUSEPORT_SELECT),
            def("kprobe+", ProgramType.KPROBE, NONE),
            def("uprobe+", ProgramType.KPROBE, NONE),
            sleepable("uprobe.s+", ProgramType.KPROBE, NONE),
            def("kretprobe+", ProgramType.KPROBE, NONE),
            def("uretprobe+", ProgramType.KPROBE, NONE),
            sleepable("uretprobe.s+", ProgramType.KPROBE, NONE),
            def("kprobe.multi+", ProgramType.KPROBE, TRACE_KPROBE_MULTI),
            def("kretprobe.multi+", ProgramType.KPROBE, TRACE_KPROBE_MULTI),
            def("uprobe.multi+", ProgramType.KPROBE, TRACE_UPROBE_MULTI),
            def("uretprobe.multi+", ProgramType.KPROBE, TRACE_UPROBE_MULTI),
            def("ksyscall+", ProgramType.KPROBE, NONE),
            def("kretsyscall+", ProgramType.KPROBE, NONE),
            def("usdt+", ProgramType.KPROBE, NONE),
            def("tc/ingress", ProgramType.SCHED_CLS, TCX_INGRESS),
            def("tc/egress", ProgramType.SCHED_CLS, TCX_EGRESS),
            def("tcx/ingress", ProgramType.SCHED_CLS, TCX_INGRESS),
            def("tcx/egress", ProgramType.SCHED_CLS, TCX_EGRESS),
            def("tc", ProgramType.SCHED_CLS, NONE),
            def("classifier", ProgramType.SCHED_CLS, NONE),
            def("action", ProgramType.SCHED_ACT, NONE),
            def("tracepoint+", ProgramType.TRACEPOINT, NONE),
            def("tp+", ProgramType.TRACEPOINT, NONE),
            def("raw_tracepoint+", ProgramType.RAW_TRACEPOINT, NONE),
            def("raw_tp+", ProgramType.RAW_TRACEPOINT, NONE),
            def("raw_tracepoint.w+", ProgramType.RAW_TRACEPOINT_WRITABLE, NONE),
            def("raw_tp.w+", ProgramType.RAW_TRACEPOINT_WRITABLE, NONE),
            def("tp_btf+", ProgramType.TRACING, TRACE_RAW_TP),
            def("fentry+", ProgramType.TRACING, TRACE_FENTRY),
            def("fmod_ret+", ProgramType.TRACING, MODIFY_RETURN),
            def("fexit+", ProgramType.TRACING, TRACE_FEXIT),
            sleepable("fentry.s+", ProgramType.TRACING, TRACE_FENTRY),
            sleepable("fmod_ret.s+", ProgramType.TRACING, MODIFY_RETURN),
            sleepable("fexit.s+", ProgramType.TRACING, TRACE_FEXIT),
            def("freplace+", ProgramType.EXT, NONE),
            def("lsm+", ProgramType.LSM, LSM_MAC),
            sleepable("lsm.s+", ProgramType.LSM, LSM_MAC),
            def("lsm_cgroup+", ProgramType.LSM, LSM_CGROUP),
            def("iter+", ProgramType.TRACING, TRACE_ITER),
            sleepable("iter.s+", ProgramType.TRACING, TRACE_ITER),
            sleepable("syscall", ProgramType.SYSCALL, NONE),
            def("xdp.frags/devmap", ProgramType.XDP, XDP_DEVMAP),
            def("xdp/devmap", ProgramType.XDP, XDP_DEVMAP),
            def("xdp.frags/cpumap", ProgramType.XDP, XDP_CPUMAP),
            def("xdp/cpumap", ProgramType.XDP, XDP_CPUMAP),
            def("xdp.frags", ProgramType.XDP, XDP),
            def("xdp", ProgramType.XDP, XDP),
            def("perf_event", ProgramType.PERF_EVENT, NONE),
            def("lwt_in", ProgramType.LWT_IN, NONE),
            def("lwt_out", ProgramType.LWT_OUT, NONE),
            def("lwt_xmit", ProgramType.LWT_XMIT, NONE),
            def("lwt_seg6local", ProgramType.LWT_SEG6LOCAL, NONE),
            def("sockops", ProgramType.SOCK_OPS, CGROUP_SOCK_OPS),
            def("sk_skb/stream_parser", ProgramType.SK_SKB, SK_SKB_STREAM_PARSER),
            def("sk_skb/stream_verdict", ProgramType.SK_SKB, SK_SKB_STREAM_VERDICT),
            def("sk_skb", ProgramType.SK_SKB, NONE),
            def("sk_msg", ProgramType.SK_MSG, SK_MSG_VERDICT),
            def("lirc_mode2", ProgramType.LIRC_MODE2, LIRC_MODE2),
            def("flow_dissector", ProgramType.FLOW_DISSECTOR, FLOW_DISSECTOR),
            def("cgroup_skb/ingress", ProgramType.CGROUP_SKB, CGROUP_INET_INGRESS),
            def("cgroup_skb/egress", ProgramType.CGROUP_SKB, CGROUP_INET_EGRESS),
            def("cgroup/skb", ProgramType.CGROUP_SKB, NONE),
            def("cgroup/sock_create", ProgramType.CGROUP_SOCK, CGROUP_INET_SOCK_CREATE),
            def("cgroup/sock_release", ProgramType.CGROUP_SOCK, CGROUP_INET_SOCK_RELEASE),
            def("cgroup/sock", ProgramType.CGROUP_SOCK, CGROUP_INET_SOCK_CREATE),
            def("cgroup/post_bind4", ProgramType.CGROUP_SOCK, CGROUP_INET4_POST_BIND),
            def("cgroup/post_bind6", ProgramType.CGROUP_SOCK, CGROUP_INET6_POST_BIND),
            def("cgroup/bind4", ProgramType.CGROUP_SOCK_ADDR, CGROUP_INET4_BIND),
            def("cgroup/bind6", ProgramType.CGROUP_SOCK_ADDR, CGROUP_INET6_BIND),
            def("cgroup/connect4", ProgramType.CGROUP_SOCK_ADDR, CGROUP_INET4_CONNECT),
            def("cgroup/connect6", ProgramType.CGROUP_SOCK_ADDR, CGROUP_INET6_CONNECT),
            def("cgroup/sendmsg4", ProgramType.CGROUP_SOCK_ADDR, CGROUP_UDP4_SENDMSG),
            def("cgroup/sendmsg6", ProgramType.CGROUP_SOCK_ADDR, CGROUP_UDP6_SENDMSG),
            def("cgroup/recvmsg4", ProgramType.CGROUP_SOCK_ADDR, CGROUP_UDP4_RECVMSG),
            def("cgroup/recvmsg6", ProgramType.CGROUP_SOCK_ADDR, CGROUP_UDP6_RECVMSG),
            def("cgroup/getpeername4", ProgramType.CGROUP_SOCK_ADDR, CGROUP_INET4_GETPEERNAME),
            def("cgroup/getpeername6", ProgramType.CGROUP_SOCK_ADDR, CGROUP_INET6_GETPEERNAME),
            def("cgroup/getsockname4", ProgramType.CGROUP_SOCK_ADDR, CGROUP_INET4_GETSOCKNAME),
            def("cgroup/getsockname6", ProgramType.CGROUP_SOCK_ADDR, CGROUP_INET6_GETSOCKNAME),
            def("cgroup/sysctl", ProgramType.CGROUP_SYSCTL, CGROUP_SYSCTL),
            def("cgroup/getsockopt", ProgramType.CGROUP_SOCKOPT, CGROUP_GETSOCKOPT),
            def("cgroup/setsockopt", ProgramType.CGROUP_SOCKOPT, CGROUP_SETSOCKOPT),
            def("cgroup/dev", ProgramType.CGROUP_DEVICE, CGROUP_DEVICE),
            def("struct_ops+", ProgramType.STRUCT_OPS, NONE),
            sleepable("struct_ops.s+", ProgramType.STRUCT_OPS, NONE),
            def("sk_lookup", ProgramType.SK_LOOKUP, SK_LOOKUP),
            def("netfilter", ProgramType.NETFILTER, NETFILTER));

    public static List<SectionDef> all() { return DEFS; }

    /**
     * The first definition matching {@code section}, as libbpf's {@code find_sec_def}. A leading
     * '?' (libbpf: do not load by default) is not part of the name that is matched.
     */
    public static Optional<SectionDef> find(String section) {
        String name = stripOptional(section);
        for (SectionDef d : DEFS) if (d.matches(name)) return Optional.of(d);
        return Optional.empty();
    }

    static String stripOptional(String section) { return section.startsWith("?") ? section.substring(1) : section; }

    public boolean matches(String section) {
        int len = pattern.length();
        char last = pattern.charAt(len - 1);
        if (last == '/') return section.startsWith(pattern);
        if (last == '+') {
            String prefix = pattern.substring(0, len - 1);
            if (!section.startsWith(prefix)) return false;
            return section.length() == prefix.length() || section.charAt(prefix.length()) == '/';
        }
        return section.equals(pattern);
    }

    /** What follows the prefix and its '/' ("do_unlinkat" for "kprobe/do_unlinkat"), or "". */
    public String attachTarget(String sectionName) {
        String section = stripOptional(sectionName);
        String prefix = pattern.endsWith("+") ? pattern.substring(0, pattern.length() - 1) : pattern;
        if (section.length() > prefix.length() && section.startsWith(prefix) && section.charAt(prefix.length()) == '/') {
            return section.substring(prefix.length() + 1);
        }
        if (pattern.endsWith("/") && section.startsWith(pattern)) return section.substring(pattern.length());
        return "";
    }
}
