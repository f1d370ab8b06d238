/* HASH: update flags (NOEXIST/EXIST), delete, lookup misses, and the helpers' errno results. */
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} small SEC(".maps");

SEC("syscall")
int hash_ops(void *ctx)
{
	long results = 0;
	/* no loop: a loop counter kept on the stack loses precision and the kernel sees an infinite loop */
#define TRY(K) { __u32 k = K; __u64 v = K * 10; long r = bpf_map_update_elem(&small, &k, &v, BPF_NOEXIST); \
		results = results * 4 + (r == 0 ? 1 : r == -7 ? 2 : 3); } /* -E2BIG when full */
	TRY(0) TRY(1) TRY(2) TRY(3) TRY(4) TRY(5)
	__u32 k = 1;
	__u64 v = 111;
	long e1 = bpf_map_update_elem(&small, &k, &v, BPF_NOEXIST); /* -EEXIST */
	long e2 = bpf_map_update_elem(&small, &k, &v, BPF_EXIST);
	k = 2;
	long d1 = bpf_map_delete_elem(&small, &k);
	long d2 = bpf_map_delete_elem(&small, &k);                  /* -ENOENT */
	k = 9;
	long e3 = bpf_map_update_elem(&small, &k, &v, BPF_EXIST);   /* -ENOENT */
	void *miss = bpf_map_lookup_elem(&small, &k);
	return (int)(results ^ (e1 << 12) ^ (e2 << 16) ^ (d1 << 20) ^ (d2 << 22) ^ (e3 << 24) ^ (miss != 0));
}
