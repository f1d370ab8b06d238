/*
 * The tc helpers that make the sk_buff longer or shorter or move VLAN tags: bpf_skb_change_head,
 * bpf_skb_change_tail, bpf_skb_adjust_room, bpf_skb_vlan_push, bpf_skb_vlan_pop and bpf_skb_change_proto;
 * and bpf_skb_change_type and bpf_skb_ecn_set_ce. Their arguments come
 * from the last 96 bytes of the packet (struct resize_args), so the packet's front may be any header and
 * fuzzed packets reach every bound. Each run records, per step, the result and what the ctx says of the
 * skb afterwards; then reads the packet again through freshly loaded data/data_end (the helpers moved it).
 */
#include "common.h"

struct step {
	__u32 op;		/* 1 change_head, 2 change_tail, 3 adjust_room, 4 vlan_push, 5 vlan_pop, 6 change_proto, 7 change_type,
				   8 ecn_set_ce */
	__s32 a;		/* head_room / new_len / len_diff / vlan_proto or proto (network order) / pkt_type */
	__u32 b;		/* adjust_room mode / vlan_tci */
	__u32 pad;
	__u64 flags;
};

struct resize_args {
	struct step step[4];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 64 * 16);
	__type(key, __u32);
	__type(value, __u64);
} skb_res SEC(".maps");

__u32 runs;

static __u32 base;

/* LD_ABS/LD_IND from C: classic BPF's packet loads, which read skb->data .. skb->len as they are now */
unsigned long long load_byte(void *skb, unsigned long long off) asm("llvm.bpf.load.byte");

static __always_inline void put(__u32 slot, __u64 v)
{
	__u32 key = base + slot;
	bpf_map_update_elem(&skb_res, &key, &v, BPF_ANY);
}

static __always_inline __u64 word(const __u8 *b)
{
	__u64 v = 0;
	#pragma unroll
	for (int i = 0; i < 8; i++)
		v = v << 8 | b[i];
	return v;
}

static __always_inline long step(struct __sk_buff *skb, struct step *s)
{
	switch (s->op) {
	case 1: return bpf_skb_change_head(skb, s->a, s->flags);
	case 2: return bpf_skb_change_tail(skb, s->a, s->flags);
	case 3: return bpf_skb_adjust_room(skb, s->a, s->b, s->flags);
	case 4: return bpf_skb_vlan_push(skb, s->a, s->b);
	case 5: return bpf_skb_vlan_pop(skb);
	case 6: return bpf_skb_change_proto(skb, s->a, s->flags);
	case 7: return bpf_skb_change_type(skb, s->a);
	case 8: return bpf_skb_ecn_set_ce(skb);
	default: return 0;
	}
}

SEC("tc")
int tc_resize(struct __sk_buff *skb)
{
	base = (runs++ & 63) * 16;
	struct resize_args a;
	__u32 len = skb->len;
	if (len < sizeof(a) || len > 4096)
		return TC_ACT_UNSPEC;
	if (bpf_skb_load_bytes(skb, len - sizeof(a), &a, sizeof(a)) < 0)
		return TC_ACT_UNSPEC;
	#pragma unroll
	for (int i = 0; i < 4; i++) {
		put(3 * i, step(skb, &a.step[i]));
		put(3 * i + 1, (__u64)skb->len << 32 | skb->protocol);
		put(3 * i + 2, (__u64)skb->pkt_type << 40 | (__u64)skb->vlan_present << 32 | skb->vlan_proto << 16 | skb->vlan_tci);
	}
	__u8 buf[8] = {};
	long r = bpf_skb_load_bytes_relative(skb, 0, buf, sizeof(buf), BPF_HDR_START_NET);
	put(12, r << 32 | (__u32)bpf_skb_load_bytes_relative(skb, 0, buf + 4, 4, BPF_HDR_START_MAC));
	put(13, word(buf));
	/* the helpers moved the packet: data and data_end must be loaded again */
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	if (data + 8 <= end) {
		put(14, word(data));
		*(__u8 *)data ^= 0xff;
	}
	/* LD_ABS reads the skb as the helpers left it: its last byte, then the byte past its end,
	 * which ends the program with r0 = 0 (TC_ACT_OK); a stale window reads on or stops early */
	__u32 n = skb->len;
	put(15, load_byte(skb, n - 1) << 32 | (__u64)(end - data));
	return load_byte(skb, n) | 0x100;
}
