package dev.bpf4j.verifier;

import java.util.List;
import java.util.Map;

import static dev.bpf4j.verifier.HelperProto.Arg.*;
import static dev.bpf4j.verifier.HelperProto.Ret.*;

/**
 * A helper's prototype as the verifier checks it ({@code struct bpf_func_proto}): the type of each
 * argument register and of r0 afterwards. Looked up by the helper's kernel name, so every helper
 * bpf4j registers under a kernel name is checked as Linux checks it (include/uapi/linux/bpf.h and
 * each helper's {@code *_proto} in the kernel). A helper the table does not know (a user's own Java
 * helper) gets {@link #UNKNOWN}: up to five initialised arguments of any type, r0 a scalar.
 */
record HelperProto(List<Arg> args, Ret ret) {
    enum Arg {
        /** Any initialised value (ARG_ANYTHING). */
        ANYTHING,
        /** A number only: for a helper that hands its argument back, a pointer would leak through r0. */
        SCALAR,
        /** Initialised if set; not checked when the caller left it unset (prototype unknown). */
        ANY_OR_UNSET,
        CONST_MAP_PTR,
        /** Readable memory of the map's key_size / value_size. */
        PTR_TO_MAP_KEY, PTR_TO_MAP_VALUE,
        /** Memory of the map's value_size that the helper writes (pop, peek). */
        PTR_TO_UNINIT_MAP_VALUE,
        /** Readable / writable memory whose size is the next argument. */
        PTR_TO_MEM, PTR_TO_UNINIT_MEM,
        CONST_SIZE, CONST_SIZE_OR_ZERO,
        PTR_TO_CTX,
        /** A callback (lddw src=4). */
        PTR_TO_FUNC,
        /** Stack memory the callback gets as its context, or NULL. */
        PTR_TO_STACK_OR_NULL,
        /** A value a ring buffer reservation returned. */
        PTR_TO_ALLOC_MEM,
        /** A map value holding a bpf_spin_lock. */
        PTR_TO_SPIN_LOCK,
        /** 8 bytes the helper writes (ARG_PTR_TO_FIXED_SIZE_MEM | MEM_UNINIT | MEM_WRITE, once ARG_PTR_TO_LONG). */
        PTR_TO_LONG,
        /** A task_struct ({@code ARG_PTR_TO_BTF_ID} of btf_tracing_ids[BTF_TRACING_TYPE_TASK]), unmodified. */
        PTR_TO_BTF_ID_TASK
    }

    enum Ret { INTEGER, VOID, PTR_TO_MAP_VALUE_OR_NULL, PTR_TO_ALLOC_MEM_OR_NULL, /** RET_PTR_TO_BTF_ID_TRUSTED of a task */ PTR_TO_BTF_ID_TASK }

    static final HelperProto UNKNOWN = new HelperProto(List.of(ANY_OR_UNSET, ANY_OR_UNSET, ANY_OR_UNSET, ANY_OR_UNSET, ANY_OR_UNSET), INTEGER);

    private static HelperProto p(Ret ret, Arg... args) { return new HelperProto(List.of(args), ret); }

    private static final Map<String, HelperProto> BY_NAME = Map.ofEntries(
            Map.entry("bpf_map_lookup_elem", p(PTR_TO_MAP_VALUE_OR_NULL, CONST_MAP_PTR, PTR_TO_MAP_KEY)),
            Map.entry("bpf_map_update_elem", p(INTEGER, CONST_MAP_PTR, PTR_TO_MAP_KEY, PTR_TO_MAP_VALUE, ANYTHING)),
            Map.entry("bpf_map_delete_elem", p(INTEGER, CONST_MAP_PTR, PTR_TO_MAP_KEY)),
            Map.entry("bpf_map_push_elem", p(INTEGER, CONST_MAP_PTR, PTR_TO_MAP_VALUE, ANYTHING)),
            Map.entry("bpf_map_pop_elem", p(INTEGER, CONST_MAP_PTR, PTR_TO_UNINIT_MAP_VALUE)),
            Map.entry("bpf_map_peek_elem", p(INTEGER, CONST_MAP_PTR, PTR_TO_UNINIT_MAP_VALUE)),
            Map.entry("bpf_probe_read", p(INTEGER, PTR_TO_UNINIT_MEM, CONST_SIZE_OR_ZERO, ANYTHING)),
            Map.entry("bpf_probe_read_user", p(INTEGER, PTR_TO_UNINIT_MEM, CONST_SIZE_OR_ZERO, ANYTHING)),
            Map.entry("bpf_probe_read_kernel", p(INTEGER, PTR_TO_UNINIT_MEM, CONST_SIZE_OR_ZERO, ANYTHING)),
            Map.entry("bpf_probe_read_str", p(INTEGER, PTR_TO_UNINIT_MEM, CONST_SIZE_OR_ZERO, ANYTHING)),
            Map.entry("bpf_probe_read_user_str", p(INTEGER, PTR_TO_UNINIT_MEM, CONST_SIZE_OR_ZERO, ANYTHING)),
            Map.entry("bpf_probe_read_kernel_str", p(INTEGER, PTR_TO_UNINIT_MEM, CONST_SIZE_OR_ZERO, ANYTHING)),
            Map.entry("bpf_ktime_get_ns", p(INTEGER)),
            Map.entry("bpf_ktime_get_boot_ns", p(INTEGER)),
            Map.entry("bpf_trace_printk", p(INTEGER, PTR_TO_MEM, CONST_SIZE, ANY_OR_UNSET, ANY_OR_UNSET, ANY_OR_UNSET)),
            Map.entry("bpf_get_prandom_u32", p(INTEGER)),
            Map.entry("bpf_get_smp_processor_id", p(INTEGER)),
            Map.entry("bpf_get_numa_node_id", p(INTEGER)),
            // bpf_tail_call returns only when it fails; r0 is then an error code.
            Map.entry("bpf_tail_call", p(INTEGER, PTR_TO_CTX, CONST_MAP_PTR, ANYTHING)),
            Map.entry("bpf_get_current_pid_tgid", p(INTEGER)),
            Map.entry("bpf_get_current_comm", p(INTEGER, PTR_TO_UNINIT_MEM, CONST_SIZE)),
            Map.entry("bpf_get_stackid", p(INTEGER, PTR_TO_CTX, CONST_MAP_PTR, ANYTHING)),
            Map.entry("bpf_get_stack", p(INTEGER, PTR_TO_CTX, PTR_TO_UNINIT_MEM, CONST_SIZE_OR_ZERO, ANYTHING)),
            Map.entry("bpf_spin_lock", p(VOID, PTR_TO_SPIN_LOCK)),
            Map.entry("bpf_spin_unlock", p(VOID, PTR_TO_SPIN_LOCK)),
            Map.entry("bpf_ringbuf_output", p(INTEGER, CONST_MAP_PTR, PTR_TO_MEM, CONST_SIZE_OR_ZERO, ANYTHING)),
            Map.entry("bpf_ringbuf_reserve", p(PTR_TO_ALLOC_MEM_OR_NULL, CONST_MAP_PTR, ANYTHING, ANYTHING)),
            Map.entry("bpf_ringbuf_submit", p(VOID, PTR_TO_ALLOC_MEM, ANYTHING)),
            Map.entry("bpf_ringbuf_discard", p(VOID, PTR_TO_ALLOC_MEM, ANYTHING)),
            Map.entry("bpf_ringbuf_query", p(INTEGER, CONST_MAP_PTR, ANYTHING)),
            Map.entry("bpf_for_each_map_elem", p(INTEGER, CONST_MAP_PTR, PTR_TO_FUNC, PTR_TO_STACK_OR_NULL, ANYTHING)),
            // bpf_snprintf's format is ARG_PTR_TO_CONST_STR in Linux; here any value, its reads checked at run time.
            Map.entry("bpf_snprintf", p(INTEGER, PTR_TO_UNINIT_MEM, CONST_SIZE_OR_ZERO, ANYTHING, PTR_TO_MEM, CONST_SIZE_OR_ZERO)),
            Map.entry("bpf_loop", p(INTEGER, ANYTHING, PTR_TO_FUNC, PTR_TO_STACK_OR_NULL, ANYTHING)),
            // kernel/bpf/helpers.c, kernel/bpf/task_iter.c, kernel/trace/bpf_trace.c
            Map.entry("bpf_get_current_task_btf", p(Ret.PTR_TO_BTF_ID_TASK)),
            Map.entry("bpf_find_vma", p(INTEGER, Arg.PTR_TO_BTF_ID_TASK, ANYTHING, PTR_TO_FUNC, PTR_TO_STACK_OR_NULL, ANYTHING)),
            Map.entry("bpf_copy_from_user_task", p(INTEGER, PTR_TO_UNINIT_MEM, CONST_SIZE_OR_ZERO, ANYTHING, Arg.PTR_TO_BTF_ID_TASK, ANYTHING)),
            Map.entry("bpf_strncmp", p(INTEGER, PTR_TO_MEM, CONST_SIZE, ANYTHING)),
            Map.entry("bpf_map_lookup_percpu_elem", p(PTR_TO_MAP_VALUE_OR_NULL, CONST_MAP_PTR, PTR_TO_MAP_KEY, ANYTHING)),
            Map.entry("bpf_ktime_get_coarse_ns", p(INTEGER)),
            Map.entry("bpf_ktime_get_tai_ns", p(INTEGER)),
            Map.entry("bpf_jiffies64", p(INTEGER)),
            Map.entry("bpf_strtol", p(INTEGER, PTR_TO_MEM, CONST_SIZE, ANYTHING, PTR_TO_LONG)),
            Map.entry("bpf_strtoul", p(INTEGER, PTR_TO_MEM, CONST_SIZE, ANYTHING, PTR_TO_LONG)),
            // net/core/filter.c
            Map.entry("bpf_skb_load_bytes", p(INTEGER, PTR_TO_CTX, ANYTHING, PTR_TO_UNINIT_MEM, CONST_SIZE)),
            Map.entry("bpf_skb_load_bytes_relative", p(INTEGER, PTR_TO_CTX, ANYTHING, PTR_TO_UNINIT_MEM, CONST_SIZE, ANYTHING)),
            Map.entry("bpf_skb_store_bytes", p(INTEGER, PTR_TO_CTX, ANYTHING, PTR_TO_MEM, CONST_SIZE, ANYTHING)),
            Map.entry("bpf_l3_csum_replace", p(INTEGER, PTR_TO_CTX, ANYTHING, ANYTHING, ANYTHING, ANYTHING)),
            Map.entry("bpf_l4_csum_replace", p(INTEGER, PTR_TO_CTX, ANYTHING, ANYTHING, ANYTHING, ANYTHING)),
            // from and to are ARG_PTR_TO_MEM | PTR_MAYBE_NULL: NULL with a zero size
            Map.entry("bpf_csum_diff", p(INTEGER, PTR_TO_MEM, CONST_SIZE_OR_ZERO, PTR_TO_MEM, CONST_SIZE_OR_ZERO, ANYTHING)),
            Map.entry("bpf_csum_update", p(INTEGER, PTR_TO_CTX, ANYTHING)),
            Map.entry("bpf_csum_level", p(INTEGER, PTR_TO_CTX, ANYTHING)),
            Map.entry("bpf_set_hash", p(INTEGER, PTR_TO_CTX, ANYTHING)),
            Map.entry("bpf_xdp_adjust_head", p(INTEGER, PTR_TO_CTX, ANYTHING)),
            Map.entry("bpf_xdp_adjust_meta", p(INTEGER, PTR_TO_CTX, ANYTHING)),
            Map.entry("bpf_xdp_adjust_tail", p(INTEGER, PTR_TO_CTX, ANYTHING)),
            Map.entry("bpf_redirect", p(INTEGER, ANYTHING, ANYTHING)),
            Map.entry("bpf_redirect_map", p(INTEGER, CONST_MAP_PTR, ANYTHING, ANYTHING)),
            Map.entry("bpf_set_hash_invalid", p(VOID, PTR_TO_CTX)),
            Map.entry("bpf_get_hash_recalc", p(INTEGER, PTR_TO_CTX)),
            Map.entry("bpf_skb_pull_data", p(INTEGER, PTR_TO_CTX, ANYTHING)),
            Map.entry("bpf_xdp_get_buff_len", p(INTEGER, PTR_TO_CTX)),
            Map.entry("bpf_xdp_load_bytes", p(INTEGER, PTR_TO_CTX, ANYTHING, PTR_TO_UNINIT_MEM, CONST_SIZE)),
            Map.entry("bpf_xdp_store_bytes", p(INTEGER, PTR_TO_CTX, ANYTHING, PTR_TO_MEM, CONST_SIZE)),
            // The conformance suites' helper 5: returns its argument (and may end the run), so only a number.
            Map.entry("unwind", p(INTEGER, SCALAR)));

    static HelperProto forName(String name) { return BY_NAME.getOrDefault(name, UNKNOWN); }
}
