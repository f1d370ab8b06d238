package dev.bpf4j.runtime;

/**
 * Which of the kernel's {@code is_valid_access} callbacks (its {@code bpf_verifier_ops} per program
 * type) decides the context accesses of a load: which ctx offsets a program may read or write, with
 * which sizes, and which fields load as packet pointers. The verifier implements each
 * ({@code verifier.CtxAccess}); a load without rules (null) keeps the lenient check of any constant
 * offset in the first 4 KiB.
 */
public enum ContextRules {
    /** {@code sk_filter_is_valid_access}: {@code __sk_buff}, no packet pointers, writes only to cb[]. */
    SOCKET_FILTER,
    /** {@code tc_cls_act_is_valid_access}: {@code __sk_buff} with data, data_end, data_meta; a few writable fields. */
    TC,
    /** {@code cg_skb_is_valid_access}: {@code __sk_buff} with data and data_end (privileged), no data_meta. */
    CGROUP_SKB,
    /** {@code lwt_is_valid_access}: {@code __sk_buff} with data and data_end, no data_meta, tstamp or hwtstamp. */
    LWT,
    /** {@code xdp_is_valid_access}: {@code struct xdp_md}, 4-byte reads only. */
    XDP,
    /** {@code kprobe_prog_is_valid_access}: {@code struct pt_regs} (168 bytes on x86-64), aligned reads. */
    KPROBE,
    /** {@code pe_prog_is_valid_access}: {@code struct bpf_perf_event_data}, 8-byte reads (narrow ones of sample_period, addr). */
    PERF_EVENT,
    /** {@code raw_tp_prog_is_valid_access}: 12 u64 arguments, aligned reads. */
    RAW_TRACEPOINT,
    /** {@code syscall_prog_is_valid_access}: a user block up to 64 KiB, aligned reads and writes. */
    SYSCALL;
}
