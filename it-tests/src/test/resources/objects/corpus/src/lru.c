/* LRU_HASH and LRU_PERCPU_HASH: remember the last packet length per source MAC byte (tc). */
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 128);
	__type(key, __u32);
	__type(value, __u64);
} last_len SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_PERCPU_HASH);
	__uint(max_entries, 128);
	__type(key, __u32);
	__type(value, __u64);
} pcpu_len SEC(".maps");

SEC("tc")
int tc_lru(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	if ((void *)(eth + 1) > data_end)
		return TC_ACT_SHOT;
	__u32 key = eth->h_source[5];
	__u64 len = skb->len;
	bpf_map_update_elem(&last_len, &key, &len, BPF_ANY);
	__u64 *p = bpf_map_lookup_elem(&pcpu_len, &key);
	if (p)
		*p += len;
	else
		bpf_map_update_elem(&pcpu_len, &key, &len, BPF_NOEXIST);
	return TC_ACT_OK;
}
