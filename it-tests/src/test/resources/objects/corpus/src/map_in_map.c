/* ARRAY_OF_MAPS and HASH_OF_MAPS: look an inner map up in an outer map, then read and update it. */
#include "common.h"

struct inner_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} inner_a SEC(".maps"), inner_b SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 3);
	__type(key, __u32);
	__array(values, struct inner_map);
} outer_arr SEC(".maps") = {
	.values = { [0] = &inner_a, [2] = &inner_b },
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
	__uint(max_entries, 4);
	__type(key, __u32);
	__array(values, struct inner_map);
} outer_hash SEC(".maps") = {
	.values = { [1] = &inner_b, [3] = &inner_a },
};

struct args {
	__u32 outer_key;
	__u32 inner_key;
	__u64 add;
	__u32 use_hash;
	__u32 result;
};

/* inner[inner_key] += add; inner[inner_key ^ 1] = the new value * 2 (an update through the inner map) */
SEC("syscall")
int mim_update(struct args *a)
{
	__u32 ok = a->outer_key, ik = a->inner_key;
	void *inner = a->use_hash ? bpf_map_lookup_elem(&outer_hash, &ok) : bpf_map_lookup_elem(&outer_arr, &ok);
	if (!inner)
		return 1; /* empty slot: NULL */
	__u64 *v = bpf_map_lookup_elem(inner, &ik);
	if (!v)
		return 2; /* index past the inner array */
	*v += a->add;
	__u64 twice = *v * 2;
	__u32 other = ik ^ 1;
	long r = bpf_map_update_elem(inner, &other, &twice, BPF_ANY);
	a->result = (__u32)*v;
	return r == 0 ? 0 : 3;
}
