/*
 * A loop storing an array of stack values into a map one element at a time: the key is the loop
 * counter, the value a stack pointer moved by it (&v[i]). Linux proves &v[i] inside the frame from
 * the counter's bounds: a u32 spilled to the stack, refilled, incremented by a 32-bit add and bounded
 * by a 32-bit compare. bpf4j once refused it ("math between fp pointer and an unbounded register":
 * no 32-bit bounds). The counter is 8-byte aligned so that Linux keeps it as a spilled register and
 * sees the loop progress; at fp-68 (clang's choice without the attribute) Linux reports "infinite
 * loop detected" (issue 21).
 */
#include "common.h"

#define N 8

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, N);
	__type(key, __u32);
	__type(value, __u64);
} squares SEC(".maps");

SEC("xdp")
int xdp_update_loop(struct xdp_md *ctx)
{
	__u64 v[N];
	__u64 len = ctx->data_end - ctx->data;
	#pragma clang loop unroll(disable)
	for (int j = 0; j < N; j++)
		v[j] = (__u64)j * j + len;
	__u32 i __attribute__((aligned(8)));
	#pragma clang loop unroll(disable)
	for (i = 0; i < N; i++)
		bpf_map_update_elem(&squares, &i, &v[i], BPF_ANY);
	return XDP_PASS;
}
