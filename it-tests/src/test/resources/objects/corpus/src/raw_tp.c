/* raw_tp: sums the tracepoint's u64 arguments into an array and a global. */
#include "common.h"

__u64 total = 0;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} last_args SEC(".maps");

SEC("raw_tp/sys_enter")
int raw_tp_args(struct bpf_raw_tracepoint_args *ctx)
{
	for (__u32 i = 0; i < 2; i++) {
		__u32 k = i;
		__u64 *v = bpf_map_lookup_elem(&last_args, &k);
		if (v) *v = ctx->args[i];
	}
	total += ctx->args[0] + ctx->args[1];
	return ctx->args[1] > 100;
}
