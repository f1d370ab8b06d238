/*
 * The sk_buff helpers of tc programs with arguments from the packet (bytes 14.. of struct tc_args), so
 * that fuzzed packets reach every bound; and the socket-filter ones. Results: the `tc_res` array.
 */
#include "common.h"

struct tc_args {
	__u32 load_off;		/* bpf_skb_load_bytes offset; len = (load_len & 31) + 1 */
	__u32 load_len;
	__u32 store_off;	/* bpf_skb_store_bytes offset, len (& 7) + 1, flags */
	__u32 store_len;
	__u64 store_flags;
	__u32 csum_off;		/* l3 / l4 csum replace offset, from, to, flags */
	__u32 pad;
	__u64 csum_from;
	__u64 csum_to;
	__u64 l3_flags;
	__u64 l4_flags;
	__u32 rel_off;		/* bpf_skb_load_bytes_relative offset, len (& 15) + 1, header */
	__u32 rel_len;
	__u32 rel_hdr;
	__u32 level_ops;	/* four bpf_csum_level operations, one per byte */
	__u64 redirect_flags;
	__u64 hash;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 64 * 16);
	__type(key, __u32);
	__type(value, __u64);
} tc_res SEC(".maps");

/* Runs so far: each run's results go to slots run * 16 + i, so every run of a test stays visible. */
__u32 runs;

static __u32 base;

static __always_inline void put(__u32 slot, __u64 v)
{
	__u32 key = base + slot;
	bpf_map_update_elem(&tc_res, &key, &v, BPF_ANY);
}

static __always_inline void next_run(void)
{
	base = (runs++ & 63) * 16;
}

static __always_inline __u64 word(const __u8 *b)
{
	__u64 v = 0;
	#pragma unroll
	for (int i = 0; i < 8; i++)
		v = v << 8 | b[i];
	return v;
}

SEC("tc")
int tc_helpers(struct __sk_buff *skb)
{
	next_run();
	struct tc_args a;
	__u8 buf[32] = {};
	if (bpf_skb_load_bytes(skb, 14, &a, sizeof(a)) < 0)
		return TC_ACT_UNSPEC;
	__u32 len = (a.load_len & 31) + 1;
	put(0, bpf_skb_load_bytes(skb, a.load_off, buf, len));
	put(1, word(buf));
	put(2, word(buf + 24));
	__u8 src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	put(3, bpf_skb_store_bytes(skb, a.store_off, src, (a.store_len & 7) + 1, a.store_flags));
	put(4, bpf_l3_csum_replace(skb, a.csum_off, a.csum_from, a.csum_to, a.l3_flags));
	put(5, bpf_l4_csum_replace(skb, a.csum_off, a.csum_from, a.csum_to, a.l4_flags));
	__u8 rel[16] = {};
	put(6, bpf_skb_load_bytes_relative(skb, a.rel_off, rel, (a.rel_len & 15) + 1, a.rel_hdr));
	put(7, word(rel));
	__u64 levels = 0;
	#pragma unroll
	for (int i = 0; i < 4; i++) {
		long r = bpf_csum_level(skb, (a.level_ops >> (8 * i)) & 0xff);
		levels = levels << 16 | (__u16)r;
	}
	put(8, levels);
	put(9, bpf_csum_update(skb, a.hash));
	bpf_set_hash(skb, a.hash);
	put(10, skb->hash);
	bpf_skb_store_bytes(skb, 0, src, 1, BPF_F_INVALIDATE_HASH);
	put(11, skb->hash);
	put(12, bpf_skb_pull_data(skb, a.load_off));
	return bpf_redirect(skb->ifindex, a.redirect_flags);
}

SEC("socket")
int sock_load(struct __sk_buff *skb)
{
	next_run();
	struct tc_args a;
	__u8 buf[32] = {};
	/* a socket filter's skb->data is the network header: struct tc_args starts at offset 0 */
	if (bpf_skb_load_bytes(skb, 0, &a, sizeof(a)) < 0)
		return 0;
	__u32 len = (a.load_len & 31) + 1;
	put(0, bpf_skb_load_bytes(skb, a.load_off, buf, len));
	put(1, word(buf));
	__u8 rel[16] = {};
	put(6, bpf_skb_load_bytes_relative(skb, a.rel_off, rel, (a.rel_len & 15) + 1, a.rel_hdr));
	put(7, word(rel));
	return skb->len;
}
