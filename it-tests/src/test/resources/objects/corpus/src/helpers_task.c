/*
 * The current task's helpers a JVM thread answers as the kernel does for it (the thread that runs a test run
 * is the kernel's current): uid/gid, pid namespace, cgroup v2 ids, bpf_copy_from_user from its memory,
 * bpf_trace_vprintk's results (bpf_printk with more than three arguments); and
 * the skb's cgroup (a test run's skb belongs to a socket the calling task allocated). A syscall program
 * takes its arguments from and writes its results to struct task_args (ctx_out); the tc one to task_res.
 */
#include "common.h"

struct task_args {
	__u64 ns_dev;		/* in: what stat(/proc/thread-self/ns/pid) gives */
	__u64 ns_ino;
	__u64 user_ptr;		/* in: user memory for bpf_copy_from_user */
	__u32 copy_len;		/* in: & 15 */
	__u32 level;		/* in: an ancestor level */
	__u64 uid_gid;		/* out from here */
	__u64 pid_tgid;
	__u64 cgroup;
	__u64 ancestor[3];	/* levels 0, 1 and `level` */
	__s64 ns_ret;
	__u32 ns_pid, ns_tgid;
	__s64 ns_short_ret;
	__s64 copy_ret;
	__u8 copied[16];
	__s64 copy_const_ret;
	__u8 copied_const[8];
	__s64 vprintk_ret;	/* bpf_printk with five arguments: bpf_trace_vprintk */
	__s64 vprintk_bad_len;
	__s64 vprintk_no_nul;
};

SEC("syscall")
int task_ids(struct task_args *a)
{
	struct bpf_pidns_info ns = {};
	__u32 small = 0x55;
	__u8 buf[16] = {};
	a->uid_gid = bpf_get_current_uid_gid();
	a->pid_tgid = bpf_get_current_pid_tgid();
	a->cgroup = bpf_get_current_cgroup_id();
	a->ancestor[0] = bpf_get_current_ancestor_cgroup_id(0);
	a->ancestor[1] = bpf_get_current_ancestor_cgroup_id(1);
	a->ancestor[2] = bpf_get_current_ancestor_cgroup_id(a->level);
	a->ns_ret = bpf_get_ns_current_pid_tgid(a->ns_dev, a->ns_ino, &ns, sizeof(ns));
	a->ns_pid = ns.pid;
	a->ns_tgid = ns.tgid;
	a->ns_short_ret = bpf_get_ns_current_pid_tgid(a->ns_dev, a->ns_ino, (void *)&small, sizeof(small)) << 8 | small;
	a->copy_ret = bpf_copy_from_user(buf, a->copy_len & 15, (void *)a->user_ptr);
	__builtin_memcpy(a->copied, buf, sizeof(buf));
	/* the ctx is kernel memory to Linux: copy_from_user refuses it */
	__u8 eight[8];
	a->copy_const_ret = bpf_copy_from_user(eight, sizeof(eight), a);
	__builtin_memcpy(a->copied_const, eight, sizeof(eight));
	a->vprintk_ret = bpf_printk("task_ids %d %u %x %lld %c", (int)a->level, a->copy_len, a->copy_len, a->ns_ino, 'j');
	static const char fmt[] = "%d %d\n";
	__u64 two[2] = {a->level, a->copy_len};
	a->vprintk_bad_len = bpf_trace_vprintk(fmt, sizeof(fmt), two, 12);
	char no_nul[4] = {'a', 'b', 'c', 'd'};
	a->vprintk_no_nul = bpf_trace_vprintk(no_nul, sizeof(no_nul), NULL, 0);
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} task_res SEC(".maps");

static __always_inline void res(__u32 i, __u64 v)
{
	bpf_map_update_elem(&task_res, &i, &v, BPF_ANY);
}

SEC("tc")
int tc_cgroup(struct __sk_buff *skb)
{
	res(0, bpf_skb_cgroup_id(skb));
	res(1, bpf_skb_ancestor_cgroup_id(skb, 0));
	res(2, bpf_skb_ancestor_cgroup_id(skb, 1));
	res(3, bpf_skb_ancestor_cgroup_id(skb, skb->len));
	return TC_ACT_OK;
}
