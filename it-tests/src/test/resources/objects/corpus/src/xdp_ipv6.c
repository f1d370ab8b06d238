/* XDP: decrements the IPv6 hop limit, drops at zero, counts next headers in an ARRAY (switch). */
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} nexthdr_counts SEC(".maps");

SEC("xdp")
int xdp_ipv6_hop(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IPV6))
		return XDP_PASS;
	struct ipv6hdr *ip6 = (void *)(eth + 1);
	if ((void *)(ip6 + 1) > data_end)
		return XDP_DROP;
	__u32 k;
	switch (ip6->nexthdr) {
	case IPPROTO_TCP: k = 0; break;
	case IPPROTO_UDP: k = 1; break;
	case IPPROTO_ICMPV6: k = 2; break;
	default: k = 3;
	}
	__u64 *v = bpf_map_lookup_elem(&nexthdr_counts, &k);
	if (v) *v += 1;
	if (ip6->hop_limit <= 1)
		return XDP_DROP;
	ip6->hop_limit--;
	return XDP_TX;
}
