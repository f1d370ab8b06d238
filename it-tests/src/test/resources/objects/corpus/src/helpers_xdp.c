/*
 * XDP helpers with their arguments taken from the packet, so that one program covers every bound:
 * bytes 14.. of the packet hold struct xdp_args. Results go to the `xdp_res` array (one u64 per slot).
 */
#include "common.h"

struct xdp_args {
	__u32 op;	/* bit 0: adjust meta before head; bit 1: write a marker at data and in the metadata */
	__s32 head;	/* bpf_xdp_adjust_head offset */
	__s32 tail;	/* bpf_xdp_adjust_tail offset */
	__s32 meta;	/* bpf_xdp_adjust_meta offset */
	__u32 redirect_flags;
	__u32 from_size;	/* bpf_csum_diff sizes (masked to 0..63) and seed */
	__u32 to_size;
	__u32 seed;
	__u8 bytes[64];	/* bpf_csum_diff's from (first 32) and to (last 32) */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 64 * 16);
	__type(key, __u32);
	__type(value, __u64);
} xdp_res SEC(".maps");

/* Runs so far: each run's results go to slots run * 16 + i, so every run of a test stays visible. */
__u32 runs;

static __u32 base;

static __always_inline void put(__u32 slot, __u64 v)
{
	__u32 key = base + slot;
	bpf_map_update_elem(&xdp_res, &key, &v, BPF_ANY);
}

static __always_inline void next_run(void)
{
	base = (runs++ & 63) * 16;
}

SEC("xdp")
int xdp_adjust(struct xdp_md *ctx)
{
	next_run();
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct xdp_args a;
	if (data + 14 + sizeof(a) > end)
		return XDP_DROP;
	__builtin_memcpy(&a, data + 14, sizeof(a));
	long m, h, t;
	if (a.op & 1) {
		m = bpf_xdp_adjust_meta(ctx, a.meta);
		h = bpf_xdp_adjust_head(ctx, a.head);
	} else {
		h = bpf_xdp_adjust_head(ctx, a.head);
		m = bpf_xdp_adjust_meta(ctx, a.meta);
	}
	t = bpf_xdp_adjust_tail(ctx, a.tail);
	put(0, h);
	put(1, m);
	put(2, t);
	data = (void *)(long)ctx->data;
	end = (void *)(long)ctx->data_end;
	void *meta = (void *)(long)ctx->data_meta;
	put(3, end - data);
	put(4, data - meta);
	if (a.op & 2) {
		if (data + 1 <= end)
			*(__u8 *)data = 0xab;
		if (meta + 4 <= data)
			*(__u32 *)meta = 0x11223344;
	}
	return bpf_redirect(ctx->ingress_ifindex, a.redirect_flags);
}

SEC("xdp")
int xdp_csum_diff(struct xdp_md *ctx)
{
	next_run();
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct xdp_args a;
	if (data + 14 + sizeof(a) > end)
		return XDP_DROP;
	__builtin_memcpy(&a, data + 14, sizeof(a));
	__u32 fs = a.from_size & 31, ts = a.to_size & 31;
	put(0, bpf_csum_diff((__be32 *)a.bytes, fs, (__be32 *)(a.bytes + 32), ts, a.seed));
	put(1, bpf_csum_diff(0, 0, (__be32 *)(a.bytes + 32), ts, a.seed));
	put(2, bpf_csum_diff((__be32 *)a.bytes, fs, 0, 0, a.seed));
	put(3, bpf_csum_diff(0, 0, 0, 0, a.seed));
	/* an IPv4 header checksum the way XDP programs compute one */
	__u32 sum = bpf_csum_diff(0, 0, (__be32 *)a.bytes, 20, 0);
	sum = (sum & 0xffff) + (sum >> 16);
	put(4, (__u16)~sum);
	return XDP_PASS;
}

SEC("xdp")
int xdp_bytes(struct xdp_md *ctx)
{
	next_run();
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct xdp_args a;
	if (data + 14 + sizeof(a) > end)
		return XDP_DROP;
	__builtin_memcpy(&a, data + 14, sizeof(a));
	__u8 buf[64] = {};
	__u32 len = (a.tail & 63) + 1;
	put(0, bpf_xdp_get_buff_len(ctx));
	put(1, bpf_xdp_load_bytes(ctx, a.head, buf, len));
	put(2, *(__u64 *)buf);
	put(3, *(__u64 *)(buf + 56));
	put(4, bpf_xdp_store_bytes(ctx, a.meta, a.bytes, (a.redirect_flags & 63) + 1));
	return XDP_PASS;
}

/* Moves the head down 8 bytes per run: a repeated test run starts where the last one left the packet. */
SEC("xdp")
int grow_head(struct xdp_md *ctx)
{
	next_run();
	put(0, bpf_xdp_get_buff_len(ctx));
	if (bpf_xdp_adjust_head(ctx, -8))
		return XDP_ABORTED;
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	if (data + 1 > end)
		return XDP_DROP;
	*(__u8 *)data = (__u8)(end - data);
	return XDP_PASS;
}
