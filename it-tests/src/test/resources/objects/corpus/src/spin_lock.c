/* bpf_spin_lock: two plain (non-atomic) counters updated under the lock of their map value. */
#include "common.h"

struct pair {
	__u64 packets;
	struct bpf_spin_lock lock;
	__u32 last_len;
	__u64 twice;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct pair);
} pairs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct pair);
} by_proto SEC(".maps");

SEC("xdp")
int xdp_spin(struct xdp_md *ctx)
{
	__u32 k = 0, len = ctx->data_end - ctx->data;
	struct pair *p = bpf_map_lookup_elem(&pairs, &k);
	if (!p)
		return XDP_ABORTED;
	bpf_spin_lock(&p->lock);
	p->packets += 1;
	p->twice += 2;
	p->last_len = len;
	bpf_spin_unlock(&p->lock);

	__u32 proto = len & 3;
	struct pair *h = bpf_map_lookup_elem(&by_proto, &proto);
	if (!h) {
		struct pair fresh = {};
		bpf_map_update_elem(&by_proto, &proto, &fresh, BPF_NOEXIST);
		h = bpf_map_lookup_elem(&by_proto, &proto);
		if (!h)
			return XDP_ABORTED;
	}
	bpf_spin_lock(&h->lock);
	h->packets += 1;
	h->twice += 2;
	bpf_spin_unlock(&h->lock);
	return XDP_PASS;
}
