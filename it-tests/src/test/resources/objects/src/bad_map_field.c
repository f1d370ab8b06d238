// Invalid for libbpf and bpf4j: a BTF map definition with a field libbpf does not know.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
	__uint(bogus, 3);
} odd SEC(".maps");

SEC("xdp")
int use_odd(struct xdp_md *ctx)
{
	__u32 k = 0;
	return bpf_map_lookup_elem(&odd, &k) ? XDP_PASS : XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
