/*
 * profile: counts samples per user stack (BCC's profile.py, user stacks only). Bundled with the
 * bpf4j CLI (`bpf4j profile`, `bpf4j demo`); rebuild with build.sh.
 *
 * Run once per perf_event sample (cpu-clock): id = bpf_get_stackid(ctx, &stack_traces,
 * BPF_F_USER_STACK) — the sampled thread's stack unwound from its registers, innermost first —
 * then counts[id] += 1. A failed bpf_get_stackid (-EEXIST on a bucket collision, -EFAULT without
 * a stack, -ENOMEM) is counted under its negative errno as key: BCC's "[Missed User Stack]".
 * The CPU time the samples stand for (the sum of ctx->sample_period, ns of cpu-clock) and the
 * samples taken outside user space (no user registers: regs.rip == 0; the uapi x86-64 pt_regs names it rip) are kept in `totals`.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <linux/bpf_perf_event.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

#define MAX_DEPTH 127

enum { TOTAL_PERIOD = 0, TOTAL_NO_USER = 1, TOTALS };

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, MAX_DEPTH * sizeof(__u64));
} stack_traces SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 40960);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TOTALS);
	__type(key, __u32);
	__type(value, __u64);
} totals SEC(".maps");

static void add(__u32 slot, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&totals, &slot);

	if (v)
		__sync_fetch_and_add(v, n);
}

SEC("perf_event")
int do_perf_event(struct bpf_perf_event_data *ctx)
{
	__u32 key;
	__u64 zero = 0, *n;

	add(TOTAL_PERIOD, ctx->sample_period);
	if (ctx->regs.rip == 0) {
		add(TOTAL_NO_USER, 1);
		return 0;
	}
	key = (__u32)bpf_get_stackid(ctx, &stack_traces, BPF_F_USER_STACK);
	n = bpf_map_lookup_elem(&counts, &key);
	if (!n) {
		/* Another CPU may insert first: BPF_NOEXIST then fails and the lookup finds its entry. */
		bpf_map_update_elem(&counts, &key, &zero, BPF_NOEXIST);
		n = bpf_map_lookup_elem(&counts, &key);
		if (!n)
			return 0;
	}
	__sync_fetch_and_add(n, 1);
	return 0;
}
