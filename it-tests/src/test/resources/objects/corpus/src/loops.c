/* Bounded loops the verifier must walk: a checksum over the packet, Fibonacci, a bit count. */
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 3);
	__type(key, __u32);
	__type(value, __u64);
} loop_out SEC(".maps");

static __always_inline void put(__u32 k, __u64 v)
{
	bpf_map_update_elem(&loop_out, &k, &v, BPF_ANY);
}

SEC("xdp")
int xdp_loops(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u64 h = 14695981039346656037ULL;
	#pragma clang loop unroll(disable)
	for (int i = 0; i < 256; i++) {
		unsigned char *p = data + i;
		if ((void *)(p + 1) > data_end)
			break;
		h = (h ^ *p) * 1099511628211ULL;
	}
	put(0, h);
	__u64 a = 0, b = 1;
	#pragma clang loop unroll(disable)
	for (int i = 0; i < 90; i++) {
		__u64 t = a + b;
		a = b;
		b = t;
	}
	put(1, a);
	__u64 x = h, bits = 0;
	#pragma clang loop unroll(disable)
	while (x) {
		bits += x & 1;
		x >>= 1;
	}
	put(2, bits);
	return XDP_PASS;
}
