/* Programs the kernel verifier refuses: bpf_spin_lock on a value without BTF, without a lock field, or off the lock. */
#include "common.h"

struct pair {
	__u64 packets;
	struct bpf_spin_lock lock;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct pair)); /* no value BTF */
} untyped SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[2]); /* BTF, but no struct bpf_spin_lock */
} unlocked SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pair);
} locked SEC(".maps");

SEC("xdp")
int lock_no_btf(struct xdp_md *ctx)
{
	__u32 k = 0;
	struct pair *p = bpf_map_lookup_elem(&untyped, &k);
	if (!p)
		return XDP_ABORTED;
	bpf_spin_lock(&p->lock);
	p->packets++;
	bpf_spin_unlock(&p->lock);
	return XDP_PASS;
}

SEC("?xdp")
int lock_no_field(struct xdp_md *ctx)
{
	__u32 k = 0;
	__u64 *p = bpf_map_lookup_elem(&unlocked, &k);
	if (!p)
		return XDP_ABORTED;
	bpf_spin_lock((struct bpf_spin_lock *)(p + 1));
	p[0]++;
	bpf_spin_unlock((struct bpf_spin_lock *)(p + 1));
	return XDP_PASS;
}

SEC("?xdp")
int lock_wrong_off(struct xdp_md *ctx)
{
	__u32 k = 0;
	struct pair *p = bpf_map_lookup_elem(&locked, &k);
	if (!p)
		return XDP_ABORTED;
	bpf_spin_lock((struct bpf_spin_lock *)&p->packets); /* the lock is at 8 */
	p->packets++;
	bpf_spin_unlock((struct bpf_spin_lock *)&p->packets);
	return XDP_PASS;
}

SEC("?xdp")
int lock_no_unlock(struct xdp_md *ctx)
{
	__u32 k = 0;
	struct pair *p = bpf_map_lookup_elem(&locked, &k);
	if (!p)
		return XDP_ABORTED;
	bpf_spin_lock(&p->lock);
	p->packets++;
	return XDP_PASS; /* still holding the lock */
}

SEC("?xdp")
int lock_call_inside(struct xdp_md *ctx)
{
	__u32 k = 0;
	struct pair *p = bpf_map_lookup_elem(&locked, &k);
	if (!p)
		return XDP_ABORTED;
	bpf_spin_lock(&p->lock);
	p->packets = bpf_ktime_get_ns(); /* no helper calls under the lock */
	bpf_spin_unlock(&p->lock);
	return XDP_PASS;
}

SEC("?xdp")
int unlock_only(struct xdp_md *ctx)
{
	__u32 k = 0;
	struct pair *p = bpf_map_lookup_elem(&locked, &k);
	if (!p)
		return XDP_ABORTED;
	bpf_spin_unlock(&p->lock);
	return XDP_PASS;
}
