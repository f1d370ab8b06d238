/* kprobe: records the first three arguments and the instruction pointer from x86-64 pt_regs. */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

struct args { __u64 di, si, dx, ip, sp; };

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u64);
	__type(value, struct args);
} calls SEC(".maps");

SEC("kprobe/do_sys_openat2")
int kprobe_args(struct pt_regs *regs)
{
	struct args a = { regs->rdi, regs->rsi, regs->rdx, regs->rip, regs->rsp };
	__u64 key = regs->rdi & 0xff;
	bpf_map_update_elem(&calls, &key, &a, BPF_ANY);
	return regs->rax == 0 ? 0 : 1;
}
