/* RINGBUF: reserve/submit, reserve/discard and output. */
#include "common.h"

struct event { __u32 len; __u32 proto; __u8 head[16]; };

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");

SEC("xdp")
int xdp_ringbuf(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	if (data + 16 > data_end)
		return XDP_DROP;
	struct event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e)
		return XDP_ABORTED;
	__u32 len = data_end - data;
	e->len = len;
	e->proto = ((struct ethhdr *)data)->h_proto;
	__builtin_memcpy(e->head, data, 16);
	if (len > 1000)
		bpf_ringbuf_discard(e, 0);
	else
		bpf_ringbuf_submit(e, 0);
	__u64 tag = 0xfeedULL << 32 | len; /* not e->len: e is released after submit/discard */
	bpf_ringbuf_output(&events, &tag, sizeof(tag), 0);
	return XDP_PASS;
}
