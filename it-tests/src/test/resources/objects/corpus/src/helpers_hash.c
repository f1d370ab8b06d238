/*
 * bpf_get_hash_recalc's properties, which hold in Linux and in bpf4j although the values differ (the flow hash
 * is keyed by a secret random at boot): per run, flags in `hash_res` slots run * 8 + i.
 */
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 64 * 8);
	__type(key, __u32);
	__type(value, __u64);
} hash_res SEC(".maps");

__u32 runs;

static __u32 base;

static __always_inline void put(__u32 slot, __u64 v)
{
	__u32 key = base + slot;
	bpf_map_update_elem(&hash_res, &key, &v, BPF_ANY);
}

static __always_inline __u32 rehash(struct __sk_buff *skb)
{
	bpf_set_hash_invalid(skb);
	return bpf_get_hash_recalc(skb);
}

SEC("tc")
int tc_hash(struct __sk_buff *skb)
{
	base = (runs++ & 63) * 8;
	__u32 h1 = bpf_get_hash_recalc(skb);
	/* nonzero, written to skb->hash, kept until invalidated */
	put(0, (h1 != 0) | (skb->hash == h1) << 1 | (bpf_get_hash_recalc(skb) == h1) << 2);
	bpf_set_hash_invalid(skb);
	__u32 cleared = skb->hash;
	/* cleared; the same packet hashes alike again */
	put(1, (cleared == 0) | (bpf_get_hash_recalc(skb) == h1) << 1);

	/* the reverse direction: addresses and ports swapped */
	__u32 l4 = 34;
	if (skb->protocol == bpf_htons(ETH_P_IP)) {
		__u32 a[2];
		if (bpf_skb_load_bytes(skb, 26, a, 8))
			return 1;
		__u32 t = a[0]; a[0] = a[1]; a[1] = t;
		bpf_skb_store_bytes(skb, 26, a, 8, 0);
	} else if (skb->protocol == bpf_htons(ETH_P_IPV6)) {
		__u64 a[4];
		if (bpf_skb_load_bytes(skb, 22, a, 32))
			return 1;
		__u64 t0 = a[0], t1 = a[1];
		a[0] = a[2]; a[1] = a[3]; a[2] = t0; a[3] = t1;
		bpf_skb_store_bytes(skb, 22, a, 32, 0);
		l4 = 54;
	}
	__u16 p[2];
	if (bpf_skb_load_bytes(skb, l4, p, 4))
		return 2;
	__u16 t = p[0]; p[0] = p[1]; p[1] = t;
	bpf_skb_store_bytes(skb, l4, p, 4, 0);
	__u32 h4 = rehash(skb);
	put(2, h4 == h1);

	/* another source port: another flow, unless the ports are not hashed (fragments, flow labels, non-IP) */
	p[1] = p[1] + 1;
	bpf_skb_store_bytes(skb, l4, p, 4, BPF_F_INVALIDATE_HASH);
	put(3, (skb->hash == 0) | (bpf_get_hash_recalc(skb) == h1) << 1);

	/* a hash set by the program is what recalc returns */
	bpf_set_hash(skb, 0x1234);
	put(4, (bpf_get_hash_recalc(skb) == 0x1234) | (skb->hash == 0x1234) << 1);
	return 0;
}
