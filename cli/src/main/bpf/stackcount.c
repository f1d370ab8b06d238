/*
 * stackcount: counts the distinct stacks that reach a probed function (BCC's stackcount, user
 * space). Bundled with the bpf4j CLI (`bpf4j trace`); rebuild with build.sh.
 *
 * On every hit: id = bpf_get_stackid(ctx, &stacks, 0) — the stack from the probe site's pt_regs,
 * innermost first — then counts[id] += 1 atomically. A failed bpf_get_stackid (-EEXIST on a
 * bucket collision, -ENOMEM when the map is full) is counted under its negative errno as key, so
 * lost stacks show up instead of vanishing.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

#define MAX_DEPTH 127

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, MAX_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

SEC("kprobe")
int stackcount(struct pt_regs *ctx)
{
	__u32 key = (__u32)bpf_get_stackid(ctx, &stacks, 0);
	__u64 zero = 0, *n;

	n = bpf_map_lookup_elem(&counts, &key);
	if (!n) {
		/* Another thread may insert first: BPF_NOEXIST then fails and the lookup finds its entry. */
		bpf_map_update_elem(&counts, &key, &zero, BPF_NOEXIST);
		n = bpf_map_lookup_elem(&counts, &key);
		if (!n)
			return 0;
	}
	__sync_fetch_and_add(n, 1);
	return 0;
}
