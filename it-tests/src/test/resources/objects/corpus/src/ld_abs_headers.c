/*
 * LD ABS/IND at the ancillary offsets of linux/filter.h: SKF_NET_OFF + k reads k bytes past the
 * network header, SKF_LL_OFF + k past the link-layer (mac) header, in a socket filter (data at the
 * network header) and in tc (data at the mac header). A load out of range ends the program with 0.
 */
#include "common.h"
#include <linux/filter.h>

unsigned long long load_byte(void *skb, unsigned long long off) asm("llvm.bpf.load.byte");
unsigned long long load_half(void *skb, unsigned long long off) asm("llvm.bpf.load.half");
unsigned long long load_word(void *skb, unsigned long long off) asm("llvm.bpf.load.word");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, __u64);
} seen SEC(".maps");

static __always_inline void put(__u32 k, __u64 v)
{
	bpf_map_update_elem(&seen, &k, &v, BPF_ANY);
}

static __always_inline int headers(struct __sk_buff *skb, int net_len)
{
	put(0, load_byte(skb, SKF_NET_OFF));                   /* the first byte of the IP header */
	put(1, load_half(skb, SKF_NET_OFF + 1));
	put(2, load_word(skb, SKF_LL_OFF));                    /* the destination MAC's first 4 bytes */
	put(3, load_byte(skb, SKF_LL_OFF + 13));               /* the EtherType's low byte */
	put(4, load_word(skb, SKF_NET_OFF + net_len - 4));     /* LD IND: the last 4 bytes */
	put(5, load_byte(skb, SKF_LL_OFF + ETH_HLEN + net_len - 1));
	put(6, load_byte(skb, SKF_AD_OFF + SKF_AD_PROTOCOL));  /* classic BPF only: ends the program */
	put(7, 1);
	return 1;
}

SEC("socket")
int skf_socket(struct __sk_buff *skb)
{
	return headers(skb, skb->len);
}

SEC("tc")
int skf_tc(struct __sk_buff *skb)
{
	return headers(skb, skb->len - ETH_HLEN);
}

/* One past the end through SKF_NET_OFF ends the program with 0 before it stores. */
SEC("socket")
int skf_past_end(struct __sk_buff *skb)
{
	put(0, load_byte(skb, SKF_NET_OFF + skb->len - 1));
	put(1, load_half(skb, SKF_NET_OFF + skb->len - 1));
	put(2, 1);
	return 2;
}
