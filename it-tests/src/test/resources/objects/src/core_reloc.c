// CO-RE: field accesses on a preserve_access_index struct and existence checks leave
// bpf_core_relo records in .BTF.ext for the loader to resolve against kernel BTF.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

struct task_struct {
	int pid;
	int tgid;
	struct task_struct *parent;
} __attribute__((preserve_access_index));

SEC("kprobe/do_nanosleep")
int core_prog(void *ctx)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	int ppid = BPF_CORE_READ(task, parent, tgid);

	if (!bpf_core_field_exists(task->parent))
		return -1;
	return ppid + bpf_core_type_size(struct task_struct);
}

char LICENSE[] SEC("license") = "GPL";
