/*
 * bpf_strtol / bpf_strtoul on strings taken from the packet (bytes 14..): u32 len (masked to 1..32),
 * u64 flags, then 32 bytes of text; and the time, CPU and per-CPU helpers, which results can only be
 * compared as facts (never as values: the kernel and bpf4j read their clocks at different times).
 */
#include "common.h"

struct str_args {
	__u32 len;
	__u32 pad;
	__u64 flags;
	char text[32];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 64 * 16);
	__type(key, __u32);
	__type(value, __u64);
} str_res SEC(".maps");

/* Runs so far: each run's results go to slots run * 16 + i, so every run of a test stays visible. */
__u32 runs;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} pcpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} pcpu_hash SEC(".maps");

static __u32 base;

static __always_inline void put(__u32 slot, __u64 v)
{
	__u32 key = base + slot;
	bpf_map_update_elem(&str_res, &key, &v, BPF_ANY);
}

static __always_inline void next_run(void)
{
	base = (runs++ & 63) * 16;
}

SEC("xdp")
int xdp_strtox(struct xdp_md *ctx)
{
	next_run();
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct str_args a;
	if (data + 14 + sizeof(a) > end)
		return XDP_DROP;
	__builtin_memcpy(&a, data + 14, sizeof(a));
	__u32 len = (a.len & 31) + 1;
	long l = -1;
	unsigned long u = -1;
	put(0, bpf_strtol(a.text, len, a.flags, &l));
	put(1, l);
	put(2, bpf_strtoul(a.text, len, a.flags, &u));
	put(3, u);
	return XDP_PASS;
}

SEC("xdp")
int xdp_cpu_time(struct xdp_md *ctx)
{
	next_run();
	__u32 k0 = 0, k1 = 1;
	__u32 cpu = bpf_get_smp_processor_id();
	__u64 *mine = bpf_map_lookup_elem(&pcpu, &k0);
	__u64 *same = bpf_map_lookup_percpu_elem(&pcpu, &k0, cpu);
	__u64 facts = 0;
	if (mine) {
		*mine = cpu + 1000;
		if (same && *same == cpu + 1000)
			facts |= 1;
		*mine = 1;
	}
	if (!bpf_map_lookup_percpu_elem(&pcpu, &k0, 100000))
		facts |= 2;
	if (!bpf_map_lookup_percpu_elem(&pcpu, &k1, -1))
		facts |= 4;
	__u64 one = 7;
	bpf_map_update_elem(&pcpu_hash, &k1, &one, BPF_ANY);
	__u64 *h = bpf_map_lookup_percpu_elem(&pcpu_hash, &k1, cpu);
	if (h && *h == 7)
		facts |= 8;
	if (!bpf_map_lookup_percpu_elem(&pcpu_hash, &k0, cpu))
		facts |= 16;
	__u64 mono = bpf_ktime_get_ns();
	__u64 coarse = bpf_ktime_get_coarse_ns();
	/* the coarse clock lags the fine one by at most a tick or two (here: 1 s) */
	if (coarse != 0 && coarse <= mono + 1000000000ULL && coarse + 1000000000ULL >= mono)
		facts |= 32;
	/* TAI is wall-clock time: after 2020 */
	if (bpf_ktime_get_tai_ns() > 1577836800ULL * 1000000000ULL)
		facts |= 64;
	/* jiffies start 300 s before 2^32 and count CONFIG_HZ (100..1000) ticks a second of monotonic time */
	__u64 j = bpf_jiffies64();
	__u64 secs = mono / 1000000000ULL;
	if (j + 300 * 1000 >= (1ULL << 32) + secs * 100 && j <= (1ULL << 32) + (secs + 2) * 1000)
		facts |= 128;
	if (bpf_get_numa_node_id() == 0)
		facts |= 256;
	put(4, facts);
	return XDP_PASS;
}
