/* PROG_ARRAY: the entry program tail-calls a parser by EtherType; a failed tail call falls through. */
#include "common.h"

int tail_ipv4(struct xdp_md *ctx);
int tail_ipv6(struct xdp_md *ctx);

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 4);
	__uint(key_size, sizeof(__u32));
	__array(values, int (void *));
} jump_table SEC(".maps") = {
	.values = { [0] = (void *)&tail_ipv4, [1] = (void *)&tail_ipv6 },
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} hits SEC(".maps");

static __always_inline void hit(__u32 k)
{
	__u64 *v = bpf_map_lookup_elem(&hits, &k);
	if (v) *v += 1;
}

SEC("xdp")
int tail_ipv4(struct xdp_md *ctx)
{
	hit(1);
	return XDP_TX;
}

SEC("xdp")
int tail_ipv6(struct xdp_md *ctx)
{
	hit(2);
	bpf_tail_call(ctx, &jump_table, 0); /* chains into tail_ipv4 */
	return XDP_DROP;
}

SEC("xdp")
int tail_entry(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	if ((void *)(eth + 1) > data_end)
		return XDP_ABORTED;
	hit(0);
	if (eth->h_proto == bpf_htons(ETH_P_IP))
		bpf_tail_call(ctx, &jump_table, 0);
	else if (eth->h_proto == bpf_htons(ETH_P_IPV6))
		bpf_tail_call(ctx, &jump_table, 1);
	else
		bpf_tail_call(ctx, &jump_table, 3); /* empty slot: falls through */
	hit(3);
	return XDP_PASS;
}


/*
 * Forty tail calls into the empty slot 3 fall through without counting towards the limit of 33
 * (Linux's x86-64 and arm64 JITs since 6.10), so the one into slot 0 is still taken.
 */
SEC("xdp")
int tail_empties(struct xdp_md *ctx)
{
	for (int i = 0; i < 40; i++)
		bpf_tail_call(ctx, &jump_table, 3);
	bpf_tail_call(ctx, &jump_table, 0);
	return XDP_DROP;
}
