/*
 * XDP programs that keep using packet pointers across bpf_xdp_adjust_*: Linux's verifier refuses them
 * (clear_all_pkt_pointers); bpf4j runs them and checks each access against the packet's new bounds,
 * the same on both engines.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

/* Reads the 64th byte after the packet shrank to 24 bytes: out of bounds. */
SEC("xdp")
int stale_after_shrink(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	if (data + 64 > end)
		return XDP_DROP;
	volatile __u8 *last = data + 63;
	if (bpf_xdp_adjust_tail(ctx, 24 - (int)(end - data)))
		return XDP_ABORTED;
	return *last;
}

/* Writes through the old data pointer after the head moved up by 8: still inside the packet. */
SEC("xdp")
int old_pointer_inside(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	if (data + 32 > end)
		return XDP_DROP;
	volatile __u8 *p = data + 8;
	if (bpf_xdp_adjust_head(ctx, 8))
		return XDP_ABORTED;
	*p = 0x5a;
	return XDP_TX;
}
