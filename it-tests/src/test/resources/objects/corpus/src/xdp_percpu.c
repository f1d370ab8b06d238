/* XDP: per-CPU packet and byte counters (PERCPU_ARRAY). */
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} pcpu_stats SEC(".maps");

SEC("xdp")
int xdp_percpu_count(struct xdp_md *ctx)
{
	__u32 k = 0;
	__u64 *v = bpf_map_lookup_elem(&pcpu_stats, &k);
	if (v)
		*v += 1;
	k = 1;
	v = bpf_map_lookup_elem(&pcpu_stats, &k);
	if (v)
		*v += ctx->data_end - ctx->data;
	return XDP_PASS;
}
