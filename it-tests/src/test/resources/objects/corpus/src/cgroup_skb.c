/* cgroup_skb: egress accounting per IP protocol; sees the packet from the network header. */
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, __u64);
} proto_bytes SEC(".maps");

SEC("cgroup_skb/egress")
int cg_egress(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	struct iphdr *ip = data;
	if ((void *)(ip + 1) > data_end)
		return 1;
	__u32 k = ip->protocol;
	__u64 *v = bpf_map_lookup_elem(&proto_bytes, &k);
	if (v)
		__sync_fetch_and_add(v, skb->len);
	return ip->ttl > 32; /* 1 = allow, 0 = drop */
}
