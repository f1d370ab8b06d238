/* XDP: counts packets and bytes per EtherType class in an ARRAY map. */
#include "common.h"

struct counter { __u64 packets; __u64 bytes; };

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct counter);
} proto_counts SEC(".maps");

SEC("xdp")
int xdp_proto_count(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	if ((void *)(eth + 1) > data_end)
		return XDP_ABORTED;
	__u32 key = 3;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) key = 0;
	else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) key = 1;
	else if (eth->h_proto == bpf_htons(ETH_P_ARP)) key = 2;
	struct counter *c = bpf_map_lookup_elem(&proto_counts, &key);
	if (!c)
		return XDP_ABORTED;
	c->packets++;
	c->bytes += data_end - data;
	return key == 3 ? XDP_DROP : XDP_PASS;
}
