/* QUEUE and STACK: push the packet length, pop the oldest / newest, peek. */
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, 8);
	__type(value, __u32);
} fifo SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK);
	__uint(max_entries, 8);
	__type(value, __u32);
} lifo SEC(".maps");

SEC("xdp")
int xdp_queue_stack(struct xdp_md *ctx)
{
	__u32 len = ctx->data_end - ctx->data;
	for (__u32 i = 0; i < 3; i++) {
		__u32 v = len + i;
		bpf_map_push_elem(&fifo, &v, 0);
		bpf_map_push_elem(&lifo, &v, 0);
	}
	__u32 first = 0, last = 0, peek = 0;
	bpf_map_pop_elem(&fifo, &first);
	bpf_map_pop_elem(&lifo, &last);
	bpf_map_peek_elem(&fifo, &peek);
	return (first << 20) ^ (last << 10) ^ peek;
}
