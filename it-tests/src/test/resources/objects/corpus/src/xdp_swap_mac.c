/* XDP: reflects the frame (swaps Ethernet addresses) and returns XDP_TX; writes the packet. */
#include "common.h"

SEC("xdp")
int xdp_swap_mac(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	if ((void *)(eth + 1) > data_end)
		return XDP_DROP;
	unsigned char tmp[ETH_ALEN];
	__builtin_memcpy(tmp, eth->h_source, ETH_ALEN);
	__builtin_memcpy(eth->h_source, eth->h_dest, ETH_ALEN);
	__builtin_memcpy(eth->h_dest, tmp, ETH_ALEN);
	return XDP_TX;
}

/* Reads the remaining xdp_md fields the kernel lets XDP programs read. */
SEC("xdp")
int xdp_md_fields(struct xdp_md *ctx)
{
	__u32 len = ctx->data_end - ctx->data;
	__u32 meta = ctx->data - ctx->data_meta;
	return (ctx->ingress_ifindex << 24) | (ctx->rx_queue_index << 16) | (meta << 12) | len;
}
