/* perf_event: reads bpf_perf_event_data (sample_period, addr, regs). */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 3);
	__type(key, __u32);
	__type(value, __u64);
} samples SEC(".maps");

SEC("perf_event")
int perf_sample(struct bpf_perf_event_data *ctx)
{
	__u32 k = 0;
	__u64 *v = bpf_map_lookup_elem(&samples, &k);
	if (v) *v += ctx->sample_period;
	k = 1;
	v = bpf_map_lookup_elem(&samples, &k);
	if (v) *v = ctx->addr;
	k = 2;
	v = bpf_map_lookup_elem(&samples, &k);
	if (v) *v = ctx->regs.rip;
	return 0;
}
