/*
 * profile_threads: counts samples per (thread, user stack), as BCC's profile.py keys its counts
 * (pid + stack ids + comm) — with the thread id beside the process id, so `bpf4j profile --threads`
 * roots each thread's stacks at its own "comm-tid" frame. Bundled with the bpf4j CLI; rebuild with
 * build.sh.
 *
 * Run once per perf_event sample: the key is the sampled task's tgid and pid (thread id, from
 * bpf_get_current_pid_tgid), its comm (bpf_get_current_comm) and bpf_get_stackid(ctx,
 * &stack_traces, BPF_F_USER_STACK); counts[key] += 1. A failed stack id is kept as its negative
 * errno (BCC's "[Missed User Stack]"). `totals` as in profile.c.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <linux/bpf_perf_event.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

#define MAX_DEPTH 127
#define TASK_COMM_LEN 16

enum { TOTAL_PERIOD = 0, TOTAL_NO_USER = 1, TOTALS };

struct key_t {
	__u32 tgid;
	__u32 pid;
	__s32 user_stack_id;
	char comm[TASK_COMM_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, MAX_DEPTH * sizeof(__u64));
} stack_traces SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 40960);
	__type(key, struct key_t);
	__type(value, __u64);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TOTALS);
	__type(key, __u32);
	__type(value, __u64);
} totals SEC(".maps");

static void add(__u32 slot, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&totals, &slot);

	if (v)
		__sync_fetch_and_add(v, n);
}

SEC("perf_event")
int do_perf_event(struct bpf_perf_event_data *ctx)
{
	struct key_t key = {};
	__u64 id = bpf_get_current_pid_tgid(), zero = 0, *n;

	add(TOTAL_PERIOD, ctx->sample_period);
	if (ctx->regs.rip == 0) {
		add(TOTAL_NO_USER, 1);
		return 0;
	}
	key.tgid = id >> 32;
	key.pid = (__u32)id;
	bpf_get_current_comm(&key.comm, sizeof(key.comm));
	key.user_stack_id = bpf_get_stackid(ctx, &stack_traces, BPF_F_USER_STACK);
	n = bpf_map_lookup_elem(&counts, &key);
	if (!n) {
		/* Another CPU may insert first: BPF_NOEXIST then fails and the lookup finds its entry. */
		bpf_map_update_elem(&counts, &key, &zero, BPF_NOEXIST);
		n = bpf_map_lookup_elem(&counts, &key);
		if (!n)
			return 0;
	}
	__sync_fetch_and_add(n, 1);
	return 0;
}
