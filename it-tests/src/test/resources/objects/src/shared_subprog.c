// A .text subprogram that uses a map and a global, called from two programs: each program gets
// its own copy, with its own map references at the copy's pcs. Also an optional program ("?tc").
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u64);
} seen SEC(".maps");

__u64 calls;

static __noinline int record(__u32 key)
{
	__u64 one = 1, *v;

	calls++;
	v = bpf_map_lookup_elem(&seen, &key);
	if (v)
		return ++*v;
	bpf_map_update_elem(&seen, &key, &one, BPF_ANY);
	return 1;
}

SEC("xdp")
int record_xdp(struct xdp_md *ctx)
{
	return record(ctx->ingress_ifindex) > 3 ? XDP_DROP : XDP_PASS;
}

SEC("?tc")
int record_tc(struct __sk_buff *skb)
{
	int n = record(skb->ifindex);

	return n + record(skb->len) > 5 ? 2 : 0;
}

char LICENSE[] SEC("license") = "GPL";
