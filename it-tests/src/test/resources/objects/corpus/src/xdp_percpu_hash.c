/* XDP: per-CPU hash of packet counts keyed by destination MAC's last byte. */
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u64);
} by_dst SEC(".maps");

SEC("xdp")
int xdp_percpu_hash(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	if ((void *)(eth + 1) > data_end)
		return XDP_DROP;
	__u32 key = eth->h_dest[5];
	__u64 *v = bpf_map_lookup_elem(&by_dst, &key);
	if (v) {
		*v += 1;
	} else {
		__u64 one = 1;
		bpf_map_update_elem(&by_dst, &key, &one, BPF_ANY);
	}
	return XDP_PASS;
}
