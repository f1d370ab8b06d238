/* Socket filters: load_byte/load_half (LD_ABS) from the network header, and __sk_buff fields. */
#include "common.h"

unsigned long long load_byte(void *skb, unsigned long long off) asm("llvm.bpf.load.byte");
unsigned long long load_half(void *skb, unsigned long long off) asm("llvm.bpf.load.half");
unsigned long long load_word(void *skb, unsigned long long off) asm("llvm.bpf.load.word");

/* Accepts IPv4 UDP datagrams to port 53 (whole packet), drops the rest. */
SEC("socket")
int sock_dns(struct __sk_buff *skb)
{
	if ((load_byte(skb, 0) >> 4) != 4)
		return 0;
	if (load_byte(skb, offsetof(struct iphdr, protocol)) != IPPROTO_UDP)
		return 0;
	__u32 ihl = (load_byte(skb, 0) & 0xf) * 4;
	if (load_half(skb, ihl + offsetof(struct udphdr, dest)) != 53)
		return 0;
	return skb->len + (load_word(skb, offsetof(struct iphdr, daddr)) & 0);
}
