/* XDP: parses Ethernet/IPv4/TCP-UDP and counts flows in a HASH map keyed by the 5-tuple. */
#include "common.h"

struct flow { __u32 saddr, daddr; __u16 sport, dport; __u8 proto; __u8 pad[3]; };

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, struct flow);
	__type(value, __u64);
} flows SEC(".maps");

SEC("xdp")
int xdp_flows(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	struct iphdr *ip = (void *)(eth + 1);
	if ((void *)(ip + 1) > data_end || ip->ihl < 5)
		return XDP_PASS;
	struct flow f = {};
	f.saddr = ip->saddr;
	f.daddr = ip->daddr;
	f.proto = ip->protocol;
	void *l4 = (void *)ip + ip->ihl * 4;
	if (ip->protocol == IPPROTO_TCP || ip->protocol == IPPROTO_UDP) {
		struct udphdr *u = l4;
		if ((void *)(u + 1) > data_end)
			return XDP_DROP;
		f.sport = bpf_ntohs(u->source);
		f.dport = bpf_ntohs(u->dest);
	}
	__u64 one = 1, *n = bpf_map_lookup_elem(&flows, &f);
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		bpf_map_update_elem(&flows, &f, &one, BPF_NOEXIST);
	return XDP_PASS;
}
