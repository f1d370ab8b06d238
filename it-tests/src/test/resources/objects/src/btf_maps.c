// BTF-defined maps of several types, with __uint/__type encodings, pinning and a map-in-map.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct value {
	__u64 packets;
	__u64 bytes;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct value);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__uint(key_size, 8);
	__uint(value_size, 4);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} by_size SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, __u64);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} percpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 128);
	__type(key, __u32);
	__type(value, struct value);
} lru SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, __u32);
} jumps SEC(".maps");

struct inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} inner_a SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 2);
	__type(key, __u32);
	__array(values, struct inner);
} outer SEC(".maps") = {
	.values = { [1] = &inner_a },
};

SEC("xdp")
int count(struct xdp_md *ctx)
{
	__u32 key = 0;
	struct value *v = bpf_map_lookup_elem(&counters, &key);

	if (v) {
		v->packets++;
		v->bytes += ctx->data_end - ctx->data;
	}
	__u64 *p = bpf_map_lookup_elem(&percpu, &key);
	if (p)
		(*p)++;
	__u64 size_key = ctx->data_end - ctx->data;
	__u32 one = 1;
	bpf_map_update_elem(&by_size, &size_key, &one, BPF_ANY);
	struct value zero = {};
	bpf_map_update_elem(&lru, &key, &zero, BPF_ANY);
	__u64 *e = bpf_ringbuf_reserve(&events, 8, 0);
	if (e) {
		*e = size_key;
		bpf_ringbuf_submit(e, 0);
	}
	void *in = bpf_map_lookup_elem(&outer, &one);
	if (in)
		bpf_map_lookup_elem(in, &key);
	bpf_tail_call(ctx, &jumps, 0);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
