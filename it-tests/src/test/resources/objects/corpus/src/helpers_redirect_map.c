/*
 * bpf_redirect_map on the four target map types. Bytes 14.. of the packet hold the map (0 devmap,
 * 1 devmap hash, 2 cpumap, 3 xskmap), the key and the flags; the verdict is the program's return value.
 */
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, __u32);
} tx_dev SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, struct bpf_devmap_val);
} tx_dev_hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CPUMAP);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct bpf_cpumap_val);
} tx_cpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u32);
} tx_xsk SEC(".maps");

struct redirect_args {
	__u32 map;
	__u32 key;
	__u64 flags;
};

SEC("xdp")
int xdp_redirect_map(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct redirect_args a;
	if (data + 14 + sizeof(a) > end)
		return 100;
	__builtin_memcpy(&a, data + 14, sizeof(a));
	switch (a.map) {
	case 0: return bpf_redirect_map(&tx_dev, a.key, a.flags);
	case 1: return bpf_redirect_map(&tx_dev_hash, a.key, a.flags);
	case 2: return bpf_redirect_map(&tx_cpu, a.key, a.flags);
	default: return bpf_redirect_map(&tx_xsk, a.key, a.flags);
	}
}
