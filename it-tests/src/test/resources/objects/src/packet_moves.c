/*
 * XDP programs that keep using packet pointers across a helper that moves the packet (bpf_xdp_adjust_*):
 * Linux's verifier refuses them (clear_all_pkt_pointers after bpf_helper_changes_pkt_data), wherever the
 * old pointer is kept: in a register, spilled to the stack, or in a caller's frame. So does bpf4j's.
 * rederived loads data and data_end again after the helper, as such programs must: both load it.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

/* Reads the 64th byte after the packet shrank to 24 bytes. */
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

/* Writes through the old data pointer after the head moved up by 8. */
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

/* The old pointer spilled to the stack (volatile) and filled after the helper. */
SEC("xdp")
int stale_spilled(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	if (data + 32 > end)
		return XDP_DROP;
	__u8 *volatile saved = data + 4;
	if (bpf_xdp_adjust_meta(ctx, -8))
		return XDP_ABORTED;
	return *saved;
}

static __attribute__((noinline)) int move_head(struct xdp_md *ctx)
{
	return bpf_xdp_adjust_head(ctx, -16) ? 1 : 0;
}

/* The helper runs in a subprogram; the caller's pointer is stale when it returns. */
SEC("xdp")
int stale_across_subprog(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	if (data + 16 > end)
		return XDP_DROP;
	volatile __u8 *p = data + 2;
	if (move_head(ctx))
		return XDP_ABORTED;
	return *p;
}

/* Loads data and data_end again after the helper: the 16 new bytes of head room, then the old packet. */
SEC("xdp")
int rederived(struct xdp_md *ctx)
{
	if (bpf_xdp_adjust_head(ctx, -16))
		return XDP_ABORTED;
	__u8 *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	if ((void *)(data + 18) > end)
		return XDP_DROP;
	data[0] = 0x5a;
	return data[17];
}
