/*
 * sampled_task: what a perf_event program learns of the *sampled* thread from the helpers about the
 * current task. In Linux the program runs on the sampled thread, so bpf_get_current_pid_tgid,
 * bpf_get_current_comm and bpf_get_smp_processor_id describe it; bpf4j must answer the same, not
 * the thread that replays the sample. tasks counts samples per (tgid, pid, comm); cpus per CPU.
 */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

struct task_key {
	__u32 tgid;
	__u32 pid;
	char comm[16];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, struct task_key);
	__type(value, __u64);
} tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, __u64);
} cpus SEC(".maps");

SEC("perf_event")
int on_sample(struct bpf_perf_event_data *ctx)
{
	struct task_key k = {};
	__u64 id = bpf_get_current_pid_tgid(), one = 1, *n;
	__u32 cpu;

	k.tgid = id >> 32;
	k.pid = (__u32)id;
	bpf_get_current_comm(k.comm, sizeof(k.comm));
	n = bpf_map_lookup_elem(&tasks, &k);
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		bpf_map_update_elem(&tasks, &k, &one, BPF_NOEXIST);
	cpu = bpf_get_smp_processor_id();
	n = bpf_map_lookup_elem(&cpus, &cpu);
	if (n)
		__sync_fetch_and_add(n, 1);
	return 0;
}
