/* bpf_loop and bpf_for_each_map_elem callbacks (BPF_PSEUDO_FUNC). */
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, __u64);
} squares SEC(".maps");

struct loop_ctx { __u64 sum; __u32 limit; };

static long square_step(__u32 i, void *data)
{
	struct loop_ctx *c = data;
	__u64 sq = (__u64)i * i;
	__u32 k = i & 7;
	bpf_map_update_elem(&squares, &k, &sq, BPF_ANY);
	c->sum += sq;
	return c->sum > c->limit; /* 1 stops the loop */
}

SEC("syscall")
int loop_squares(void *ctx)
{
	struct loop_ctx c = { 0, 1000 };
	long n = bpf_loop(20, square_step, &c, 0);
	return (int)(n * 100000 + c.sum);
}

static long add_value(void *map, __u32 *key, __u64 *value, void *data)
{
	*(__u64 *)data += *value * (*key + 1);
	return 0;
}

SEC("syscall")
int each_square(void *ctx)
{
	__u64 total = 0;
	long n = bpf_for_each_map_elem(&squares, add_value, &total, 0);
	return (int)(n * 1000000 + total);
}
