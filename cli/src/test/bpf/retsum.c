/*
 * retsum: a return probe (SEC("kretprobe"), as for a Linux uretprobe) for the trace tests. At every
 * return of the probed function: totals[0] += 1, totals[1] += PT_REGS_RC(ctx) (the return value),
 * and counts[bpf_get_stackid(ctx, &stacks, 0)] += 1 — the stack from the return's pt_regs, whose ip
 * is the return address in the caller. Rebuild with build.sh.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, 127 * sizeof(__u64));
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} totals SEC(".maps");

SEC("kretprobe")
int retsum(struct pt_regs *ctx)
{
	__u32 returns = 0, sum = 1;
	__u64 zero = 0, *t, *n;
	__u32 key = (__u32)bpf_get_stackid(ctx, &stacks, 0);

	t = bpf_map_lookup_elem(&totals, &returns);
	if (t)
		__sync_fetch_and_add(t, 1);
	t = bpf_map_lookup_elem(&totals, &sum);
	if (t)
		__sync_fetch_and_add(t, PT_REGS_RC(ctx));
	n = bpf_map_lookup_elem(&counts, &key);
	if (!n) {
		bpf_map_update_elem(&counts, &key, &zero, BPF_NOEXIST);
		n = bpf_map_lookup_elem(&counts, &key);
		if (!n)
			return 0;
	}
	__sync_fetch_and_add(n, 1);
	return 0;
}
