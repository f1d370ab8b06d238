// A callback passed by address (lddw with a relocation against .text: BPF_PSEUDO_FUNC), a string
// literal in .rodata.str1.1, and a prog array whose initial slots name programs.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct loop_ctx {
	__u64 sum;
};

static int add_index(__u32 index, void *data)
{
	struct loop_ctx *c = data;

	c->sum += index;
	return 0;
}

SEC("tc")
int tail_target(struct __sk_buff *skb)
{
	return 1;
}

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__array(values, int (void *));
} programs SEC(".maps") = {
	.values = { [2] = (void *)&tail_target },
};

SEC("tc")
int loop_sum(struct __sk_buff *skb)
{
	struct loop_ctx c = { .sum = 0 };
	const char *msg = "sum is %llu";

	bpf_loop(10, add_index, &c, 0);
	bpf_trace_printk(msg, 12, c.sum);
	bpf_tail_call(skb, &programs, 2);
	return c.sum == 45 ? 0 : 2;
}

char LICENSE[] SEC("license") = "GPL";
