/* Atomics on map values and globals: add, fetch_add, or/and/xor, xchg, cmpxchg (needs -mcpu=v3). */
#include "common.h"

struct vals { __u64 add; __u64 fetch; __u64 ors; __u64 ands; __u64 xors; __u64 xchg; __u64 cas; __u32 add32; __u32 pad; };

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vals);
} atomic_vals SEC(".maps");

__u64 global_counter;

SEC("tc")
int tc_atomics(struct __sk_buff *skb)
{
	__u32 k = 0;
	struct vals *v = bpf_map_lookup_elem(&atomic_vals, &k);
	if (!v)
		return TC_ACT_SHOT;
	__sync_fetch_and_add(&v->add, skb->len);
	__u64 old = __sync_fetch_and_add(&v->fetch, 3);
	__sync_fetch_and_or(&v->ors, 1ULL << (skb->len & 63));
	if (v->ands == 0)
		v->ands = ~0ULL;
	__sync_fetch_and_and(&v->ands, ~(1ULL << (skb->len & 7)));
	__sync_fetch_and_xor(&v->xors, 0x5a5a5a5a5a5a5a5aULL);
	__u64 prev = __sync_lock_test_and_set(&v->xchg, old + 100);
	__sync_val_compare_and_swap(&v->cas, prev, prev + 1000);
	__sync_fetch_and_add(&v->add32, 1);
	return (int)(__sync_fetch_and_add(&global_counter, 1) & 0xff);
}
