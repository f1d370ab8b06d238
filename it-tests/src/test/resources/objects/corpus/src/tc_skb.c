/* tc: reads __sk_buff fields, writes mark, priority and cb (copied back as ctx_out), decrements the IPv4 TTL. */
#include "common.h"

SEC("tc")
int tc_mark(struct __sk_buff *skb)
{
	skb->mark = skb->len ^ (skb->protocol << 8) ^ skb->pkt_type;
	skb->priority = skb->ifindex + 7;
	skb->cb[0] = skb->cb[1] + skb->ingress_ifindex;
	skb->cb[4] = skb->wire_len;
	return skb->protocol == bpf_htons(ETH_P_IP) ? TC_ACT_OK : TC_ACT_UNSPEC;
}

SEC("tc")
int tc_ttl(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
		return TC_ACT_OK;
	struct iphdr *ip = (void *)(eth + 1);
	if ((void *)(ip + 1) > data_end)
		return TC_ACT_OK;
	if (ip->ttl <= 1)
		return TC_ACT_SHOT;
	/* incremental checksum update (RFC 1624) */
	__u32 sum = (__u16)~ip->check + (__u16)~bpf_htons(ip->ttl << 8) + bpf_htons((ip->ttl - 1) << 8);
	ip->ttl--;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	ip->check = ~sum;
	return TC_ACT_OK;
}
